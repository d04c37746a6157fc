package io.flashchunk.cache;

import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * The child JVM of {@link CrashRecoveryTest}: runs a cache under load (gets with puts on misses,
 * reclaims, invalidations, frequent checkpoints) until it is killed. Arguments: the data directory,
 * the devices. Prints READY once recovered, then DURABLE once a chunk it put is named by a durable
 * checkpoint, before the load starts; prints MISMATCH and exits 3 if it is ever served a wrong byte.
 */
public final class CrashWorkload {
    static final int CHUNK = 16384;
    static final int CHUNKS_PER_FILE = 64;

    private CrashWorkload() {
    }

    /** The bytes of a chunk follow from the file's identity: a changed file has other bytes. */
    static long seed(FileIdentity identity) {
        return identity.path().hashCode() * 31L + identity.modifiedMillis() * 17 + identity.inode();
    }

    public static void main(String[] args) throws Exception {
        Path dataDir = Path.of(args[0]);
        List<Path> devices = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            devices.add(Path.of(args[i]));
        }
        // The production policy: checkpoints follow the changes (10%) and the clock.
        FlashCache cache = RestartFixture.startCompact(devices, c -> c.checkpointIntervalMillis(150)
                .checkpointChangePercent(10).queueBytes(4L << 20));
        List<CachedFile> files = new ArrayList<>();
        List<Long> seeds = new ArrayList<>();
        try (Stream<Path> listing = Files.list(dataDir)) {
            for (Path path : listing.sorted().toList()) {
                CachedFile file = cache.registerFile(FileIdentity.of(path));
                files.add(file);
                seeds.add(seed(file.identity()));
            }
        }
        System.out.println("READY " + cache.stats().recoveredEntries());
        System.out.flush();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            long threadSeed = System.nanoTime() + t;
            threads.add(new Thread(() -> readForever(cache, files, seeds, threadSeed)));
        }
        threads.add(new Thread(() -> churnForever(cache, files)));
        announceDurable(cache, files.get(0), seeds.get(0));
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
    }

    /**
     * Puts the file's first chunk and has a checkpoint written, then prints DURABLE: a run the test
     * kills after that line leaves something to recover, however slow the machine is. The checkpoint
     * names every chunk offered before it was asked for.
     */
    private static void announceDurable(FlashCache cache, CachedFile file, long seed) throws java.io.IOException {
        cache.put(file, 0, ByteBuffer.wrap(ChunkContent.bytes(seed, 0, CHUNK)), System.nanoTime());
        cache.checkpointNow();
        System.out.println("DURABLE");
        System.out.flush();
    }

    private static void readForever(FlashCache cache, List<CachedFile> files, List<Long> seeds, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        while (true) {
            int f = random.nextInt(files.size());
            int chunk = random.nextInt(100) < 80 ? random.nextInt(CHUNKS_PER_FILE / 3) : random.nextInt(CHUNKS_PER_FILE);
            long position = (long) chunk * CHUNK;
            byte[] expected = ChunkContent.bytes(seeds.get(f), position, CHUNK);
            CachedChunk served = cache.get(files.get(f), position, CHUNK, false);
            if (served == null) {
                cache.put(files.get(f), position, ByteBuffer.wrap(expected), System.nanoTime());
                continue;
            }
            byte[] actual = ChunkContent.read(served);
            served.release();
            if (!Arrays.equals(expected, actual)) {
                System.out.println("MISMATCH " + files.get(f) + "@" + position);
                System.out.flush();
                Runtime.getRuntime().halt(3);
            }
        }
    }

    private static void churnForever(FlashCache cache, List<CachedFile> files) {
        SplittableRandom random = new SplittableRandom(System.nanoTime());
        try {
            while (true) {
                if (random.nextInt(4) == 0) {
                    cache.invalidatePosition(files.get(random.nextInt(files.size())),
                            (long) random.nextInt(CHUNKS_PER_FILE) * CHUNK);
                }
                Thread.sleep(5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

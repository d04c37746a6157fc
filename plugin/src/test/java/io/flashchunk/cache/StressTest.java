package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.testing.Backend;
import io.flashchunk.testing.Scratch;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The engine under everything at once, for a bounded time: readers that read on through a
 * hit's follower (the overflow read), puts, invalidations of chunks and of whole files (replaced by
 * new versions with other bytes), and segments reclaimed, reinserted and reused all the while on two
 * small devices. An invalidated position is a chunk whose bytes changed (as an early-opened file's
 * last chunk does): every byte served, followers' included, must be the file version's bytes of a
 * generation no older than the last invalidation completed before the read began.
 */
class StressTest {
    private static final int FILES = 8;
    private static final int CHUNKS_PER_FILE = 64;
    private static final int[] CHUNK_SIZES = {4096, 16384, 65536};
    private static final long RUN_NANOS = 6_000_000_000L;
    /**
     * Hits the run needs before it ends, whatever the time: a loaded machine makes fewer in 6 s, and a
     * run must mean as much there. {@link #LIMIT_NANOS} bounds the wait for them.
     */
    private static final long ENOUGH_HITS = 2_000;
    private static final long LIMIT_NANOS = 180_000_000_000L;
    /** Reads of reader 0 between two changes. */
    private static final int CHANGE_EVERY = 8;
    /** Two devices of 6 MiB, 1 MiB segments: about 10 MiB of segments under a 14 MiB working set. */
    private static final long DEVICE_BYTES = 6L << 20;

    /**
     * One version of a file: its registration, the seed of its bytes, and per chunk the generation of
     * its bytes now ({@code generations}, raised before the chunk's invalidation) and the newest
     * generation whose invalidation has returned ({@code settled}).
     */
    private record Version(CachedFile file, long seed, int chunkSize, AtomicIntegerArray generations,
                           AtomicIntegerArray settled) {
        Version(CachedFile file, long seed, int chunkSize) {
            this(file, seed, chunkSize, new AtomicIntegerArray(CHUNKS_PER_FILE), new AtomicIntegerArray(CHUNKS_PER_FILE));
        }

        int length(int chunk) {
            return chunk == CHUNKS_PER_FILE - 1 ? chunkSize / 2 + 123 : chunkSize;
        }

        byte[] bytes(int chunk, int generation) {
            return ChunkContent.bytes(seed * 1_000_003 + generation, (long) chunk * chunkSize, length(chunk));
        }

        /** The chunk's bytes changed in its file: readers from now on must not be served the old ones. */
        void change(FlashCache cache, int chunk) {
            int generation = generations.incrementAndGet(chunk);
            cache.invalidatePosition(file, (long) chunk * chunkSize);
            settled.accumulateAndGet(chunk, generation, Math::max);
        }
    }

    /** What the readers saw. */
    private static final class Tally {
        final AtomicInteger mismatches = new AtomicInteger();
        final AtomicReference<String> firstMismatch = new AtomicReference<>();
        final AtomicLong hits = new AtomicLong();
        final AtomicLong followers = new AtomicLong();

        /** The bytes must be of a generation from {@code oldest} (settled when the read began) to the newest. */
        void check(Version version, int chunk, int oldest, CachedChunk served) {
            byte[] actual = ChunkContent.read(served);
            served.release();
            int newest = version.generations().get(chunk);
            for (int generation = oldest; generation <= newest; generation++) {
                if (Arrays.equals(version.bytes(chunk, generation), actual)) {
                    return;
                }
            }
            mismatches.incrementAndGet();
            firstMismatch.compareAndSet(null, version.file() + " chunk " + chunk + ": not the bytes of generation "
                    + oldest + ".." + newest + " (" + actual.length + " bytes served)");
        }
    }

    @ParameterizedTest(name = "dram tier {0}")
    @ValueSource(booleans = {false, true})
    void everyServedByteMatchesTheFileVersionItWasAskedFor(boolean dramTier) throws Exception {
        List<Path> files = List.of(Scratch.file("compact-stress-a", DEVICE_BYTES), Scratch.file("compact-stress-b", DEVICE_BYTES));
        CacheConfig.Builder builder = CacheConfig.builder().segmentBytes(1 << 20)
                .queueBytes(4L << 20).checkpointChangePercent(25).dramTierBytes(dramTier ? 2L << 20 : 0)
                .readTimeoutMillis(10_000); // a shared machine may stall a read; a timeout is not what this test is about
        List<BlockDevice> devices = new ArrayList<>();
        for (Path file : files) {
            DeviceSpec spec = Backend.LIBAIO.spec(file).withQueueDepth(16);
            builder.device(spec);
            devices.add(BlockDevices.open(spec));
        }
        try (SegmentFlashCache cache = new SegmentFlashCache(builder.build(), devices, System::nanoTime)) {
            AtomicReferenceArray<Version> versions = new AtomicReferenceArray<>(FILES);
            AtomicLong seeds = new AtomicLong(1);
            for (int f = 0; f < FILES; f++) {
                versions.set(f, newVersion(cache, f, seeds.getAndIncrement()));
            }
            Tally tally = new Tally();
            long start = System.nanoTime();
            BooleanSupplier done = () -> {
                long ran = System.nanoTime() - start;
                return ran > LIMIT_NANOS || (ran > RUN_NANOS && tally.hits.get() >= ENOUGH_HITS);
            };
            ExecutorService pool = Executors.newFixedThreadPool(3);
            List<Future<?>> tasks = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                long readerSeed = 100 + r;
                // Reader 0 also changes chunks and files, one change every few reads: paced by the
                // readers' own progress, so the other two read while the changes land.
                Changes changes = r == 0 ? new Changes(cache, versions, seeds) : null;
                tasks.add(pool.submit(() -> read(cache, versions, readerSeed, done, tally, changes)));
            }
            for (Future<?> task : tasks) {
                task.get();
            }
            pool.shutdown();

            assertEquals(0, tally.mismatches.get(), "wrong bytes served; first: " + tally.firstMismatch.get());
            assertEquals(0, cache.engine().reader().outstandingBuffers(), "every read buffer came back");
            CacheStats stats = cache.stats();
            assertTrue(tally.hits.get() >= ENOUGH_HITS, "too few hits to mean anything in 180 s: " + tally.hits.get());
            assertTrue(tally.followers.get() > 0, "no follower was ever served: " + stats);
            assertTrue(stats.engine().segmentsReclaimed() > 0, "no segment was reclaimed: " + stats);
            assertTrue(stats.engine().invalidations() > 0, "no invalidations: " + stats);
            assertEquals(0, stats.engine().damagedRecords(), "flash held damaged records: " + stats);
            assertEquals(0, stats.readErrors() + stats.writeErrors(), stats.toString());
            if (dramTier) {
                assertTrue(stats.dramHits() > 0, "the DRAM tier never served: " + stats);
            }
        } finally {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }

    private static Version newVersion(FlashCache cache, int slot, long seed) {
        String path = "/data/compact-stress-" + slot;
        // A new file at the slot's path and inode: its birth time tells it from the one before.
        CachedFile file = cache.registerFile(new FileIdentity(path, 1L << 30, seed, slot, seed, FileIdentity.UNKNOWN));
        return new Version(file, seed, CHUNK_SIZES[slot % CHUNK_SIZES.length]);
    }

    /** Reads a few chunks on from a random start, as a partition read does, claiming each hit's follower. */
    private static void read(FlashCache cache, AtomicReferenceArray<Version> versions, long seed, BooleanSupplier done,
                             Tally tally, Changes changes) {
        SplittableRandom random = new SplittableRandom(seed);
        for (long reads = 0; !done.getAsBoolean(); reads++) {
            if (changes != null && reads % CHANGE_EVERY == 0) {
                changes.one();
            }
            Version version = versions.get(random.nextInt(FILES));
            // Hotspot: 80% of reads start in the first 30% of chunks.
            int hot = CHUNKS_PER_FILE * 3 / 10;
            int chunk = random.nextInt(100) < 80 ? random.nextInt(hot) : hot + random.nextInt(CHUNKS_PER_FILE - hot);
            FollowingChunk follower = null;
            for (int end = Math.min(CHUNKS_PER_FILE, chunk + 1 + random.nextInt(4)); chunk < end; chunk++) {
                long position = (long) chunk * version.chunkSize();
                int oldest = version.settled().get(chunk);
                CachedChunk served = null;
                if (follower != null && follower.position() == position) {
                    served = cache.claim(version.file(), follower);
                    if (served != null) {
                        tally.followers.incrementAndGet();
                    }
                } else if (follower != null) {
                    follower.release();
                }
                follower = null;
                if (served == null) {
                    served = cache.get(version.file(), position, version.chunkSize(), true);
                }
                if (served == null) {
                    // A miss reads the file: the time first, then the bytes as they are now.
                    long started = System.nanoTime();
                    byte[] bytes = version.bytes(chunk, version.generations().get(chunk));
                    cache.put(version.file(), position, ByteBuffer.wrap(bytes), started);
                    continue;
                }
                follower = served.takeFollower();
                tally.hits.incrementAndGet();
                tally.check(version, chunk, oldest, served);
            }
            if (follower != null) {
                follower.release();
            }
        }
    }

    /** Chunks that change in their files (a generation raised, then the position invalidated) and files replaced. */
    private record Changes(FlashCache cache, AtomicReferenceArray<Version> versions, AtomicLong seeds,
                           SplittableRandom random) {
        Changes(FlashCache cache, AtomicReferenceArray<Version> versions, AtomicLong seeds) {
            this(cache, versions, seeds, new SplittableRandom(7));
        }

        void one() {
            int slot = random.nextInt(FILES);
            Version version = versions.get(slot);
            if (random.nextInt(10) == 0) {
                // The file is replaced: new bytes under the same path.
                cache.invalidateFile(version.file());
                versions.set(slot, newVersion(cache, slot, seeds.getAndIncrement()));
            } else {
                version.change(cache, random.nextInt(CHUNKS_PER_FILE));
            }
        }
    }
}

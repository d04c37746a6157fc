package io.flashchunk.cassandra;

import io.flashchunk.cache.CacheConfig;
import io.flashchunk.cache.FlashCache;
import io.flashchunk.cache.ReadBuffers;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.testing.CountingReadMetrics;
import io.flashchunk.testing.FileChunkReader;
import io.flashchunk.testing.UnpooledMissBuffers;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.apache.cassandra.io.compress.BufferType;
import org.apache.cassandra.io.util.Rebufferer;
import org.apache.cassandra.io.util.Rebufferer.BufferHolder;

/**
 * The workload of {@link ChunkServiceOutOfMemoryTest}, in a JVM of its own started with a small
 * {@code -XX:MaxDirectMemorySize}: every chunk of a data file is cached, the rest of the node (ballast
 * here) takes all but {@value #ROOM_BUFFERS} times {@value #BALLAST_BYTES} bytes of direct memory, and
 * {@value #THREADS} readers each keep {@value #HELD} chunks at once, far more hits than the room left
 * holds. Misses read into heap buffers, so only the cache's hits want direct memory. Prints one line,
 * {@code RESULT key=value ...}, and exits 0 when it got that far.
 *
 * <p>Arguments: the cache's device file, a directory for the data file.
 */
public final class DirectMemoryReads {
    private static final int CHUNK = 65536;
    private static final int CHUNKS = 48;
    private static final int THREADS = 4;
    private static final int HELD = 8;
    private static final int READS = 2 * HELD;
    private static final int BALLAST_BYTES = 64 << 10;
    private static final int ROOM_BUFFERS = 8;

    private DirectMemoryReads() {
    }

    public static void main(String[] args) throws Exception {
        Path device = Path.of(args[0]);
        Path data = Path.of(args[1]).resolve("nb-1-big-Data.db");
        byte[] content = new byte[CHUNKS * CHUNK];
        new SplittableRandom(7).nextBytes(content);
        Files.write(data, content);

        CountingReadMetrics metrics = new CountingReadMetrics();
        UnpooledMissBuffers missBuffers = new UnpooledMissBuffers();
        try (FlashCache cache = FlashCache.open(CacheConfig.builder().device(DeviceSpec.of(device))
                .segmentBytes(1 << 20).checkpointChangePercent(0).build());
             FileChunkReader reader = new FileChunkReader(data, content.length, CHUNK, BufferType.ON_HEAP)) {
            ChunkService chunks = new ChunkService(cache, metrics, missBuffers, null);
            FlashRebufferer file = new FlashRebufferer(reader, new SSTableFiles(cache).open(data.toString()), chunks);
            Rebufferer warm = file.instantiateRebufferer(true);
            for (int i = 0; i < CHUNKS; i++) {
                warm.rebuffer((long) i * CHUNK).release();
            }
            warm.closeReader();
            cache.checkpointNow();
            long cached = cache.entries();

            List<ByteBuffer> ballast = fillDirectMemory();
            // Given up for the collector to take back when the cache's next allocation asks it to.
            ballast.subList(0, ROOM_BUFFERS).clear();
            long hitsBefore = metrics.hits();
            long missesBefore = metrics.misses();

            LongAdder wrongBytes = new LongAdder();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                SplittableRandom random = new SplittableRandom(t);
                Thread thread = new Thread(() -> {
                    Rebufferer own = file.instantiateRebufferer(false);
                    ArrayDeque<BufferHolder> held = new ArrayDeque<>();
                    try {
                        start.await();
                        for (int r = 0; r < READS; r++) {
                            if (held.size() == HELD) {
                                held.removeFirst().release();
                            }
                            long position = (long) random.nextInt(CHUNKS) * CHUNK;
                            BufferHolder holder = own.rebuffer(position);
                            held.addLast(holder);
                            if (!Arrays.equals(bytes(holder), chunkOf(content, position))) {
                                wrongBytes.increment();
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    } finally {
                        held.forEach(BufferHolder::release);
                        own.closeReader();
                    }
                }, "reader-" + t);
                thread.start();
                readers.add(thread);
            }
            start.countDown();
            for (Thread thread : readers) {
                thread.join();
            }
            long loadHits = metrics.hits() - hitsBefore;
            long loadMisses = metrics.misses() - missesBefore;
            long leakedReadBuffers = ReadBuffers.outstanding(cache);
            long outOfMemory = chunks.outOfMemory();

            // Memory back (the ballast is collected when the cache next asks for memory): hits again.
            ballast.clear();
            Rebufferer after = file.instantiateRebufferer(false);
            long hitsBeforeAfter = metrics.hits();
            for (int i = 0; i < CHUNKS; i++) {
                BufferHolder holder = after.rebuffer((long) i * CHUNK);
                if (!Arrays.equals(bytes(holder), chunkOf(content, (long) i * CHUNK))) {
                    wrongBytes.increment();
                }
                holder.release();
            }
            after.closeReader();
            Throwable thrown = failure.get();
            System.out.println("RESULT cached=" + cached + " reads=" + (THREADS * READS) + " hits=" + loadHits
                    + " misses=" + loadMisses + " outOfMemory=" + outOfMemory + " cacheFailures="
                    + chunks.cacheFailures() + " wrongBytes=" + wrongBytes.sum() + " leakedReadBuffers="
                    + leakedReadBuffers + " leakedMissBuffers=" + missBuffers.outstanding() + " hitsAfter="
                    + (metrics.hits() - hitsBeforeAfter) + " thrown=" + (thrown == null ? "none"
                    : thrown.toString().replace(' ', '_')));
            if (thrown != null) {
                thrown.printStackTrace();
            }
        }
    }

    private static byte[] chunkOf(byte[] content, long position) {
        return Arrays.copyOfRange(content, (int) position, (int) position + CHUNK);
    }

    private static byte[] bytes(BufferHolder holder) {
        ByteBuffer buffer = holder.buffer();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    /**
     * Takes all the direct memory the JVM lets it have: the JVM's own allocation, which collects
     * unreachable buffers and tries again before it throws, says when there is no more.
     */
    private static List<ByteBuffer> fillDirectMemory() {
        List<ByteBuffer> ballast = new ArrayList<>();
        try {
            while (true) {
                ballast.add(ByteBuffer.allocateDirect(BALLAST_BYTES));
            }
        } catch (OutOfMemoryError full) {
            return ballast;
        }
    }
}

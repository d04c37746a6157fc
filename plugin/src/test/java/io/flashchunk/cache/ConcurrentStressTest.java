package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.cache.index.FileIdentity;
import io.flashchunk.testing.Backend;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Readers, puts, invalidations of chunks and of whole files (replaced by new versions with other
 * bytes), evictions and migrations, all at once for a bounded time. Every byte served is compared
 * with the ground truth of the file version the reader asked for: no mismatch is allowed.
 */
class ConcurrentStressTest {
    private static final int FILES = 8;
    private static final int CHUNKS_PER_FILE = 48;
    private static final int[] CHUNK_SIZES = {4096, 16384, 65536};
    private static final long RUN_NANOS = 6_000_000_000L;

    /** One version of a file: its registration and the seed of its bytes. */
    private record Version(CachedFile file, long seed, int chunkSize) {
        int length(int chunk) {
            return chunk == CHUNKS_PER_FILE - 1 ? chunkSize / 2 + 123 : chunkSize;
        }
    }

    @ParameterizedTest(name = "dram tier {0}")
    @ValueSource(booleans = {false, true})
    void everyServedByteMatchesTheFileVersionItWasAskedFor(boolean dramTier) throws Exception {
        // Two small spaces (3 MiB each) under a 9 MiB working set: constant eviction.
        try (CacheFixture fixture = CacheFixture.of(List.of(Backend.LIBAIO, Backend.LIBAIO), 3L << 20,
                c -> c.queueBytes(4L << 20).maxWritesInFlight(4).allocationWaitMillis(20).migrationBatch(16)
                        .dramTierBytes(dramTier ? 2L << 20 : 0).readAhead(dramTier))) {
            FlashChunkCache cache = fixture.cache;
            AtomicReferenceArray<Version> versions = new AtomicReferenceArray<>(FILES);
            AtomicLong seeds = new AtomicLong(1);
            for (int f = 0; f < FILES; f++) {
                versions.set(f, newVersion(cache, f, seeds.getAndIncrement()));
            }
            AtomicInteger mismatches = new AtomicInteger();
            AtomicReference<String> firstMismatch = new AtomicReference<>();
            AtomicLong verifiedHits = new AtomicLong();
            long deadline = System.nanoTime() + RUN_NANOS;
            ExecutorService pool = Executors.newFixedThreadPool(5);
            List<Future<?>> tasks = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                long readerSeed = 100 + r;
                tasks.add(pool.submit(() -> read(cache, versions, readerSeed, deadline, mismatches, firstMismatch,
                        verifiedHits)));
            }
            tasks.add(pool.submit(() -> invalidate(cache, versions, seeds, deadline)));
            tasks.add(pool.submit(() -> migrate(cache, deadline)));
            for (Future<?> task : tasks) {
                task.get();
            }
            pool.shutdown();

            assertEquals(0, mismatches.get(), "wrong bytes served; first: " + firstMismatch.get());
            CacheStats stats = cache.stats();
            assertTrue(verifiedHits.get() > 1000, "too few hits to mean anything: " + verifiedHits.get());
            assertTrue(stats.evictions() > 0, "no evictions: " + stats);
            assertTrue(stats.invalidations() > 0, "no invalidations: " + stats);
            assertTrue(stats.migrations() > 0, "no migrations: " + stats);
            assertEquals(0, stats.checksumErrors(), "flash returned bytes the index did not expect: " + stats);
            assertEquals(0, stats.readErrors() + stats.writeErrors());
            if (dramTier) {
                assertTrue(stats.dramHits() > 0, "the DRAM tier never served: " + stats);
            }
        }
    }

    private static Version newVersion(FlashChunkCache cache, int slot, long seed) {
        String path = "/data/stress-" + slot;
        // A new file at the slot's path and inode: its birth time tells it from the one before.
        CachedFile file = cache.registerFile(new FileIdentity(path, 1L << 30, seed, slot, seed, FileIdentity.UNKNOWN));
        return new Version(file, seed, CHUNK_SIZES[slot % CHUNK_SIZES.length]);
    }

    private static void read(FlashChunkCache cache, AtomicReferenceArray<Version> versions, long seed, long deadline,
                             AtomicInteger mismatches, AtomicReference<String> firstMismatch, AtomicLong hits) {
        SplittableRandom random = new SplittableRandom(seed);
        while (System.nanoTime() < deadline) {
            Version version = versions.get(random.nextInt(FILES));
            // Hotspot: 80% of reads go to the first 30% of chunks.
            int hot = CHUNKS_PER_FILE * 3 / 10;
            int chunk = random.nextInt(100) < 80 ? random.nextInt(hot) : hot + random.nextInt(CHUNKS_PER_FILE - hot);
            long position = (long) chunk * version.chunkSize();
            byte[] expected = ChunkContent.bytes(version.seed(), position, version.length(chunk));
            CachedChunk served = cache.get(version.file(), position);
            if (served == null) {
                cache.put(version.file(), position, java.nio.ByteBuffer.wrap(expected));
                continue;
            }
            byte[] actual = ChunkContent.read(served);
            served.release();
            hits.incrementAndGet();
            if (!Arrays.equals(expected, actual)) {
                mismatches.incrementAndGet();
                firstMismatch.compareAndSet(null, version.file() + "@" + position + ": expected " + expected.length
                        + " bytes, got " + actual.length);
            }
        }
    }

    private static void invalidate(FlashChunkCache cache, AtomicReferenceArray<Version> versions, AtomicLong seeds,
                                   long deadline) {
        SplittableRandom random = new SplittableRandom(7);
        try {
            while (System.nanoTime() < deadline) {
                int slot = random.nextInt(FILES);
                Version version = versions.get(slot);
                if (random.nextInt(10) == 0) {
                    // The file is replaced: new bytes under the same path.
                    cache.invalidateFile(version.file());
                    versions.set(slot, newVersion(cache, slot, seeds.getAndIncrement()));
                } else {
                    cache.invalidatePosition(version.file(), (long) random.nextInt(CHUNKS_PER_FILE) * version.chunkSize());
                }
                Thread.sleep(2);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void migrate(FlashChunkCache cache, long deadline) {
        SplittableRandom random = new SplittableRandom(11);
        try {
            while (System.nanoTime() < deadline) {
                // Make one space look overloaded so maintenance moves its hottest chunks away.
                cache.spaces().space(random.nextInt(2)).reads().mark(100_000);
                cache.runMaintenance();
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

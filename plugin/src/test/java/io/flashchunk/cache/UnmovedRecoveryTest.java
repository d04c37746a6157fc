package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.cache.index.ChunkKeys;
import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.cache.index.RecoveredEntries;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A restarted cache serves its recovered entries from the recovery table before they move into the
 * index, and every operation covers entries that have not moved yet.
 */
class UnmovedRecoveryTest {
    private static final long DEVICE_BYTES = 64L << 20;
    private static final int CHUNK = 16384;

    /** Fills a cache with {@code chunks} chunks of one file and stops it (a final checkpoint). */
    private static void fillAndStop(RestartFixture fixture, Path data, int chunks) throws Exception {
        fillAndStop(fixture, data, chunks, CHUNK);
    }

    private static void fillAndStop(RestartFixture fixture, Path data, int chunks, int chunkSize) throws Exception {
        try (FlashChunkCache cache = fixture.start(c -> { })) {
            CachedFile file = cache.registerFile(data);
            for (int i = 0; i < chunks; i++) {
                cache.put(file, (long) i * chunkSize, ChunkContent.buffer(1, (long) i * chunkSize, chunkSize));
                if (i % 256 == 255) {
                    FlashChunkCacheTest.await("writes", () -> cache.stats().queuedChunks() == 0);
                }
            }
            FlashChunkCacheTest.await("writes", () -> cache.stats().queuedChunks() == 0);
            assertEquals(chunks, cache.entries());
        }
    }

    private static long usedBlocks(FlashChunkCache cache) {
        return cache.stats().spaces().stream().mapToLong(s -> s.usedBlocks()).sum();
    }

    @Test
    void unmovedEntriesAreServedAndMoveOnTheirFirstRead() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            Path data = fixture.dataFile("a-Data.db");
            fillAndStop(fixture, data, 40);
            try (FlashChunkCache cache = fixture.startWithoutMoving()) {
                assertEquals(40, cache.recoveredNotMoved().entries(), "nothing has moved yet");
                assertEquals(40, cache.entries());
                assertEquals(cache.capacityBytes() / 4096, cache.index().maximumBlocks() + 40 * 4,
                        "the index's bound leaves room for the unmoved entries' blocks");
                CachedFile file = cache.registerFile(data);
                cache.put(file, 0, ChunkContent.buffer(1, 0, CHUNK));
                assertEquals(1, cache.stats().putsAlreadyCached(), "an unmoved entry is cached already");
                for (int i = 0; i < 40; i++) {
                    FlashChunkCacheTest.assertHit(cache, file, 1, (long) i * CHUNK, CHUNK);
                }
                assertEquals(0, cache.recoveredNotMoved().entries(), "each moved on its first read");
                assertEquals(40, cache.index().size());
                assertEquals(40, cache.entries());
                assertEquals(40 * 4 * 4096, cache.weightedBytes());
            }
        }
    }

    /**
     * A full cache recovered: every read moves an entry into an index whose bound left room only for
     * the entries already there. Each move must make room for itself first, or Caffeine evicts
     * recovered chunks (CrashRecoveryTest once missed a checkpointed chunk this way).
     */
    @Test
    void readersMovingAFullRecoveredCacheEvictNothing() throws Exception {
        try (var fixture = new RestartFixture(1, 16L << 20)) {
            Path data = fixture.dataFile("a-Data.db");
            int chunks;
            try (FlashChunkCache cache = fixture.start(c -> { })) {
                chunks = (int) (cache.capacityBytes() / CHUNK);
                CachedFile file = cache.registerFile(data);
                for (int i = 0; i < chunks; i++) {
                    cache.put(file, (long) i * CHUNK, ChunkContent.buffer(1, (long) i * CHUNK, CHUNK));
                    if (i % 64 == 63) {
                        FlashChunkCacheTest.await("writes", () -> cache.stats().queuedChunks() == 0);
                    }
                }
                FlashChunkCacheTest.await("writes", () -> cache.stats().queuedChunks() == 0);
                cache.cleanUp();
                assertEquals(chunks, cache.entries(), "the cache is exactly full, nothing evicted");
            }
            try (FlashChunkCache cache = fixture.startWithoutMoving()) {
                assertEquals(chunks, cache.stats().recoveredEntries());
                assertTrue(cache.index().maximumBlocks() < CHUNK / 4096, "the table holds all but a sliver of the capacity");
                CachedFile file = cache.registerFile(data);
                for (int i = 0; i < chunks; i++) {
                    FlashChunkCacheTest.assertHit(cache, file, 1, (long) i * CHUNK, CHUNK);
                    cache.cleanUp();
                }
                assertEquals(0, cache.stats().evictions(), "moving a recovered entry evicts nothing");
                assertEquals(chunks, cache.index().size());
                assertEquals(cache.capacityBytes() / 4096, cache.index().maximumBlocks());
                for (int i = 0; i < chunks; i++) {
                    FlashChunkCacheTest.assertHit(cache, file, 1, (long) i * CHUNK, CHUNK);
                }
            }
        }
    }

    /**
     * A reader looks in the index, then in the table; the mover inserts into the index, then takes
     * from the table. A reader whose two looks straddle a whole move found the chunk in neither and
     * missed it (CrashRecoveryTest once failed this way). Here the reader always reads the entry the
     * mover is about to move, so its looks straddle moves often.
     */
    @Test
    void readersRacingTheMoverMissNothing() throws Exception {
        int chunk = 4096;
        int chunks = 12_000;
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            Path data = fixture.dataFile("a-Data.db");
            fillAndStop(fixture, data, chunks, chunk);
            long reads = 0;
            for (int round = 0; round < 40 && reads < 40; round++) {
                try (FlashChunkCache cache = fixture.startWithoutMoving()) {
                    CachedFile file = cache.registerFile(data);
                    RecoveredEntries table = cache.recoveredNotMoved();
                    assertEquals(chunks, table.entries());
                    cache.moveRecoveredInBackground();
                    int slot = 0;
                    while (true) {
                        while (slot < table.slots() && ChunkLocation.isDead(table.location(slot))) {
                            slot++;
                        }
                        if (slot == table.slots()) {
                            break;
                        }
                        long position = ChunkKeys.position(table.key(slot));
                        reads++;
                        CachedChunk served = cache.get(file, position);
                        assertNotNull(served, "a read racing the mover missed " + position + ": " + cache.stats());
                        try {
                            assertArrayEquals(ChunkContent.bytes(1, position, chunk), ChunkContent.read(served));
                        } finally {
                            served.release();
                        }
                    }
                    assertEquals(0, cache.stats().misses(), "a read racing the mover missed");
                }
            }
            assertTrue(reads > 10, "the reader raced the mover only " + reads + " times");
        }
    }

    @Test
    void theBackgroundMoverMovesEverythingAndRestoresTheIndexBound() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            Path data = fixture.dataFile("a-Data.db");
            fillAndStop(fixture, data, 200);
            try (FlashChunkCache cache = fixture.start(c -> { })) {
                FlashChunkCacheTest.await("the move", () -> cache.recoveredNotMoved().entries() == 0);
                assertEquals(200, cache.index().size());
                assertEquals(cache.capacityBytes() / 4096, cache.index().maximumBlocks());
                CachedFile file = cache.registerFile(data);
                for (int i = 0; i < 200; i++) {
                    FlashChunkCacheTest.assertHit(cache, file, 1, (long) i * CHUNK, CHUNK);
                }
            }
        }
    }

    @Test
    void invalidatingAnUnmovedPositionForgetsItAndHoldsItsRunUntilACheckpoint() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            Path data = fixture.dataFile("a-Data.db");
            fillAndStop(fixture, data, 10);
            try (FlashChunkCache cache = fixture.startWithoutMoving()) {
                CachedFile file = cache.registerFile(data);
                cache.invalidatePosition(file, 3L * CHUNK);
                assertNull(cache.get(file, 3L * CHUNK), "an invalidated unmoved entry is never served");
                assertEquals(9, cache.entries());
                assertEquals(4, cache.stats().spaces().get(0).heldBlocks(), "the last checkpoint names its run");
                cache.checkpoint();
                assertEquals(0, cache.stats().spaces().get(0).heldBlocks());
                assertEquals(9 * 4, usedBlocks(cache));
            }
            try (FlashChunkCache cache = fixture.startWithoutMoving()) {
                assertEquals(9, cache.stats().recoveredEntries(), "the invalidated position does not come back");
                assertNull(cache.get(cache.registerFile(data), 3L * CHUNK));
            }
        }
    }

    @Test
    void invalidatingAFileSweepsItsUnmovedEntriesAndFreesTheirRuns() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            Path gone = fixture.dataFile("gone-Data.db");
            Path kept = fixture.dataFile("kept-Data.db");
            try (FlashChunkCache cache = fixture.start(c -> { })) {
                for (Path data : List.of(gone, kept)) {
                    CachedFile file = cache.registerFile(data);
                    for (int i = 0; i < 10; i++) {
                        cache.put(file, (long) i * CHUNK, ChunkContent.buffer(1, (long) i * CHUNK, CHUNK));
                    }
                }
                FlashChunkCacheTest.await("writes", () -> cache.stats().queuedChunks() == 0);
            }
            try (FlashChunkCache cache = fixture.startWithoutMoving()) {
                CachedFile file = cache.registerFile(gone);
                cache.invalidateFile(file);
                assertNull(cache.get(file, 0));
                cache.sweepInvalidatedFiles();
                assertEquals(10, cache.entries(), "the sweep removed the file's ten unmoved entries");
                assertEquals(10 * 4, usedBlocks(cache), "a gone file's runs are free at once");
                assertEquals(0, cache.stats().spaces().get(0).heldBlocks());
                FlashChunkCacheTest.assertHit(cache, cache.registerFile(kept), 1, 0, CHUNK);
            }
        }
    }

    @Test
    void checkpointsBeforeAnyMoveNameEveryUnmovedEntry() throws Exception {
        try (var fixture = new RestartFixture(2, DEVICE_BYTES)) {
            Path data = fixture.dataFile("a-Data.db");
            fillAndStop(fixture, data, 60);
            for (int restart = 0; restart < 2; restart++) {
                try (FlashChunkCache cache = fixture.startWithoutMoving()) {
                    assertEquals(60, cache.stats().recoveredEntries());
                    assertEquals(60, cache.checkpoint().entries(), "the checkpoint writes the unmoved entries");
                }
            }
            try (FlashChunkCache cache = fixture.startWithoutMoving()) {
                CachedFile file = cache.registerFile(data);
                for (int i = 0; i < 60; i++) {
                    FlashChunkCacheTest.assertHit(cache, file, 1, (long) i * CHUNK, CHUNK);
                }
            }
        }
    }

    /**
     * Readers, the background mover and checkpoints race with invalidations: an invalidated position
     * is never served afterwards, and the last checkpoint brings back exactly the others.
     */
    @Test
    void invalidationsRacingWithMovesAreNeverLost() throws Exception {
        int chunks = 1500;
        try (var fixture = new RestartFixture(2, DEVICE_BYTES)) {
            Path data = fixture.dataFile("a-Data.db");
            fillAndStop(fixture, data, chunks);
            Set<Long> invalidated = ConcurrentHashMap.newKeySet();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            try (FlashChunkCache cache = fixture.startWithoutMoving()) {
                CachedFile file = cache.registerFile(data);
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    SplittableRandom random = new SplittableRandom(t);
                    threads.add(new Thread(() -> {
                        while (!stop.get() && failure.get() == null) {
                            long position = (long) random.nextInt(chunks) * CHUNK;
                            CachedChunk chunk = cache.get(file, position);
                            if (chunk != null) {
                                try {
                                    byte[] actual = new byte[chunk.length()];
                                    chunk.buffer().duplicate().get(actual);
                                    if (!java.util.Arrays.equals(ChunkContent.bytes(1, position, CHUNK), actual)) {
                                        failure.compareAndSet(null, new AssertionError("wrong bytes at " + position));
                                    }
                                } finally {
                                    chunk.release();
                                }
                            }
                        }
                    }));
                }
                threads.add(new Thread(() -> {
                    while (!stop.get() && failure.get() == null) {
                        try {
                            cache.checkpoint();
                        } catch (Exception e) {
                            failure.compareAndSet(null, e);
                        }
                    }
                }));
                threads.forEach(Thread::start);
                cache.moveRecoveredInBackground();
                SplittableRandom random = new SplittableRandom(99);
                for (int i = 0; i < 300 && failure.get() == null; i++) {
                    long position = (long) random.nextInt(chunks) * CHUNK;
                    cache.invalidatePosition(file, position);
                    invalidated.add(position);
                    if (cache.get(file, position) != null) {
                        failure.compareAndSet(null, new AssertionError("served " + position + " after its invalidation"));
                    }
                }
                FlashChunkCacheTest.await("the move", () -> cache.recoveredNotMoved().entries() == 0);
                stop.set(true);
                for (Thread thread : threads) {
                    thread.join();
                }
                if (failure.get() != null) {
                    throw new AssertionError(failure.get());
                }
                for (long position : invalidated) {
                    assertNull(cache.get(file, position), "invalidated " + position);
                }
                assertEquals(chunks - invalidated.size(), cache.entries(), cache.stats().toString());
            }
            try (FlashChunkCache cache = fixture.startWithoutMoving()) {
                assertEquals(chunks - invalidated.size(), cache.stats().recoveredEntries(),
                        "every other entry comes back (the final checkpoint was accepted)");
                CachedFile file = cache.registerFile(data);
                for (int i = 0; i < chunks; i++) {
                    long position = (long) i * CHUNK;
                    if (invalidated.contains(position)) {
                        assertNull(cache.get(file, position));
                    } else {
                        FlashChunkCacheTest.assertHit(cache, file, 1, position, CHUNK);
                    }
                }
                assertTrue(cache.stats().checksumErrors() == 0 && cache.stats().staleReads() == 0);
            }
        }
    }
}

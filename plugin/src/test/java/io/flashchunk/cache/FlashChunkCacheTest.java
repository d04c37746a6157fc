package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.flashchunk.cache.checkpoint.CheckpointFormatException;
import io.flashchunk.cache.checkpoint.CheckpointReader;
import io.flashchunk.cache.checkpoint.Superblock;
import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.cache.index.ChunkEntry;
import io.flashchunk.cache.index.ChunkKeys;
import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.cache.index.FileIdentity;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import io.flashchunk.device.capi.CapiBlockDevice;
import io.flashchunk.testing.Backend;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** What the cache promises to a caller, one behaviour at a time. */
class FlashChunkCacheTest {
    private static final long DEVICE_BYTES = 64L << 20;

    static CachedFile file(FlashChunkCache cache, String name) {
        return cache.registerFile(new FileIdentity("/data/" + name, 1L << 30, 1_000, name.hashCode(), 1, 1));
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

    /** Waits until every chunk put so far is written or dropped: today's queue drained, or the compact writer idle. */
    static void awaitWritten(FlashCache cache) throws InterruptedException {
        if (cache instanceof CompactChunkCache compact) {
            assertTrue(compact.engine().awaitWritten(20, TimeUnit.SECONDS), "the compact engine's writer took every chunk");
        } else {
            await("the writes", () -> cache.stats().queuedChunks() == 0);
        }
    }

    static void assertHit(FlashCache cache, CachedFile file, long seed, long position, int length) {
        CachedChunk chunk = cache.get(file, position, length, false);
        assertNotNull(chunk, "expected a hit for " + file + "@" + position);
        try {
            assertArrayEquals(ChunkContent.bytes(seed, position, length), ChunkContent.read(chunk),
                    "bytes of " + file + "@" + position);
        } finally {
            chunk.release();
        }
    }

    @Test
    void aPutChunkIsServedFromMemoryThenFromFlash() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "a");
            assertNull(cache.get(file, 0));
            cache.put(file, 0, ChunkContent.buffer(1, 0, 16384));
            await("the chunk to reach flash", () -> cache.stats().flashWrites() == 1);
            assertHit(cache, file, 1, 0, 16384);
            CacheStats stats = cache.stats();
            assertEquals(1, stats.flashHits());
            assertEquals(1, stats.misses());
            assertEquals(16384, stats.flashBytesWritten());
            assertEquals(1, stats.entries());
            assertEquals(4, stats.weightedBlocks());
            assertEquals(4, stats.spaces().get(0).usedBlocks());
            assertEquals(1, stats.flashHitLatencyNanos().getTotalCount());
        }
    }

    @Test
    void aQueuedChunkIsServedFromMemory() throws Exception {
        // A device slowed down by our capiblock library keeps the chunk in the queue for a while.
        try (CacheFixture fixture = CacheFixture.onFaultyCapi(Map.of("FLASHCHUNK_CBLK_LATENCY_US", "300000"), DEVICE_BYTES,
                c -> c.readTimeoutMillis(5_000))) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "q");
            cache.put(file, 8192, ChunkContent.buffer(2, 8192, 8192));
            await("the chunk to be indexed", () -> cache.entries() == 1);
            assertHit(cache, file, 2, 8192, 8192);
            assertEquals(1, cache.stats().memoryHits());
            assertEquals(0, cache.stats().flashWrites());
            await("the slow write", () -> cache.stats().flashWrites() == 1);
            assertHit(cache, file, 2, 8192, 8192);
            assertEquals(1, cache.stats().flashHits());
        }
    }

    @Test
    void chunksOfDifferentSizesAndAShortLastChunkShareOneCache() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            CachedFile small = file(cache, "small");
            CachedFile medium = file(cache, "medium");
            CachedFile large = file(cache, "large");
            int[] sizes = {4096, 16384, 65536};
            CachedFile[] files = {small, medium, large};
            for (int f = 0; f < 3; f++) {
                for (int i = 0; i < 10; i++) {
                    cache.put(files[f], (long) i * sizes[f], ChunkContent.buffer(f, (long) i * sizes[f], sizes[f]));
                }
            }
            // The last chunk of a file is shorter than the chunk size.
            cache.put(large, 10L * 65536, ChunkContent.buffer(2, 10L * 65536, 5000));
            await("31 chunks on flash", () -> cache.stats().flashWrites() == 31);
            for (int f = 0; f < 3; f++) {
                for (int i = 0; i < 10; i++) {
                    assertHit(cache, files[f], f, (long) i * sizes[f], sizes[f]);
                }
            }
            CachedChunk last = cache.get(large, 10L * 65536);
            assertEquals(5000, last.length());
            last.release();
            assertHit(cache, large, 2, 10L * 65536, 5000);
            assertEquals(10 * (1 + 4 + 16) + 2, cache.stats().weightedBlocks(), "blocks: 4K=1, 16K=4, 64K=16, 5000 B=2");
        }
    }

    @Test
    void invalidatingAPositionForgetsItAndFreesItsBlocksAtOnce() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "p");
            cache.put(file, 0, ChunkContent.buffer(3, 0, 65536));
            cache.put(file, 65536, ChunkContent.buffer(3, 65536, 65536));
            await("two writes", () -> cache.stats().flashWrites() == 2);
            assertEquals(32, cache.stats().spaces().get(0).usedBlocks());
            cache.invalidatePosition(file, 0);
            assertNull(cache.get(file, 0));
            assertHit(cache, file, 3, 65536, 65536);
            assertEquals(16, cache.stats().spaces().get(0).usedBlocks());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> cache.invalidatePosition(file, 100));
            assertTrue(e.getMessage().contains("100") && e.getMessage().contains("/data/p"), e.getMessage());
        }
    }

    @Test
    void bytesReadBeforeAnInvalidationOfTheirPositionAreNeverAdmitted() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "growing");
            long readStarted = System.nanoTime();
            // The file's last chunk is rewritten (early open) while a reader holds its old bytes.
            cache.invalidatePosition(file, 0);
            cache.put(file, 0, ChunkContent.buffer(19, 0, 1000), readStarted);
            cache.put(file, 4096, ChunkContent.buffer(19, 4096, 4096), readStarted);
            await("the queue to drain", () -> cache.stats().queuedChunks() == 0);
            assertNull(cache.get(file, 0), "the old bytes of an invalidated position are not cached");
            assertHit(cache, file, 19, 4096, 4096);
            cache.put(file, 0, ChunkContent.buffer(20, 0, 4096));
            await("the new bytes", () -> cache.stats().flashWrites() == 2);
            assertHit(cache, file, 20, 0, 4096);
        }
    }

    @Test
    void invalidatingAFileStopsServingItAtOnceAndSweepsItsBlocks() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            CachedFile old = file(cache, "f");
            CachedFile other = file(cache, "g");
            for (int i = 0; i < 8; i++) {
                cache.put(old, i * 16384L, ChunkContent.buffer(4, i * 16384L, 16384));
                cache.put(other, i * 16384L, ChunkContent.buffer(5, i * 16384L, 16384));
            }
            await("16 writes", () -> cache.stats().flashWrites() == 16);
            cache.invalidateFile(old);
            assertNull(cache.get(old, 0), "an invalidated file is never served");
            // The same path written again is a new file, with new content and a new id.
            CachedFile renewed = file(cache, "f");
            assertTrue(renewed.id() != old.id());
            assertNull(cache.get(renewed, 0));
            await("the sweep", () -> cache.entries() == 8);
            assertEquals(32, cache.stats().spaces().get(0).usedBlocks());
            for (int i = 0; i < 8; i++) {
                assertHit(cache, other, 5, i * 16384L, 16384);
            }
        }
    }

    @Test
    void weightEvictionKeepsTheIndexWithinFlashAndEvictedChunksMiss() throws Exception {
        // 4 MiB of flash, 16 KiB chunks: room for about 240 of the 600 offered.
        try (CacheFixture fixture = CacheFixture.of(4L << 20, c -> c.queueBytes(1L << 30))) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "e");
            int chunks = 600;
            for (int i = 0; i < chunks; i++) {
                cache.put(file, i * 16384L, ChunkContent.buffer(6, i * 16384L, 16384));
            }
            await("the queue to drain", () -> cache.stats().queuedChunks() == 0);
            cache.cleanUp();
            CacheStats stats = cache.stats();
            assertTrue(stats.evictions() > 0, "evictions: " + stats.evictions());
            assertTrue(stats.weightedBlocks() <= cache.capacityBytes() / 4096, "weight " + stats.weightedBlocks());
            assertTrue(stats.spaces().get(0).usedBlocks() <= 1024);
            int hits = 0;
            for (int i = 0; i < chunks; i++) {
                CachedChunk chunk = cache.get(file, i * 16384L);
                if (chunk != null) {
                    hits++;
                    assertArrayEquals(ChunkContent.bytes(6, i * 16384L, 16384), ChunkContent.read(chunk));
                    chunk.release();
                }
            }
            assertTrue(hits > 100 && hits <= 256, "hits " + hits);
        }
    }

    @Test
    void mixedChunkSizesUnderEvictionKeepFlashWellUsed() throws Exception {
        // 16 MiB of flash under a stream of 4, 16 and 64 KiB chunks and short last chunks, four times
        // larger than the flash: the allocator must keep finding runs, and rounding must waste little.
        try (CacheFixture fixture = CacheFixture.of(16L << 20, c -> c.queueBytes(8L << 20).allocationWaitMillis(2_000))) {
            FlashChunkCache cache = fixture.cache;
            SplittableRandom random = new SplittableRandom(5);
            int[] sizes = {4096, 16384, 65536};
            long offered = 0;
            for (int f = 0; f < 300; f++) {
                CachedFile file = file(cache, "mixed-" + f);
                int size = sizes[random.nextInt(3)];
                int chunks = 4 + random.nextInt(12);
                for (int i = 0; i < chunks; i++) {
                    int length = i == chunks - 1 ? 1 + random.nextInt(size) : size;
                    cache.put(file, (long) i * size, ChunkContent.buffer(f, (long) i * size, length));
                    offered += length;
                }
                await("the queue to drain", () -> cache.stats().queuedBytes() < (4L << 20));
            }
            await("the queue to drain", () -> cache.stats().queuedChunks() == 0);
            cache.cleanUp();
            CacheStats stats = cache.stats();
            long dataBlocks = stats.spaces().get(0).dataBlocks();
            assertTrue(offered > 3 * dataBlocks * 4096, "the stream must overflow the flash: " + offered);
            assertEquals(0, stats.droppedNoSpace(), "fragmentation left a writer without a run: " + stats);
            long used = stats.spaces().get(0).usedBlocks();
            assertTrue(used >= 0.85 * dataBlocks, "flash used " + used + " of " + dataBlocks + " blocks");
            long cachedBytes = 0;
            for (ChunkEntry entry : cache.index().entries()) {
                if (!ChunkLocation.isDead(entry.location())) {
                    cachedBytes += ChunkLocation.length(entry.location());
                }
            }
            double waste = 1 - cachedBytes / (stats.weightedBlocks() * 4096.0);
            assertTrue(waste <= 0.10, "rounding wasted " + waste + " of the allocated flash");
        }
    }

    @Test
    void onlyRunsTheLastCheckpointNamesWaitForTheNextOne() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(4L << 20, c -> c.queueBytes(1L << 30)
                .minCheckpointIntervalMillis(3_600_000).allocationWaitMillis(20))) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "named");
            // Admitted and evicted between checkpoints: nothing names these runs, they are free at once.
            for (int i = 0; i < 400; i++) {
                cache.put(file, i * 16384L, ChunkContent.buffer(17, i * 16384L, 16384));
            }
            await("the queue to drain", () -> cache.stats().queuedChunks() == 0);
            cache.cleanUp();
            CacheStats before = cache.stats();
            assertTrue(before.evictions() > 100, "evictions " + before.evictions());
            assertEquals(0, before.spaces().get(0).heldBlocks(), "no checkpoint names an evicted run yet");
            assertEquals(0, before.droppedNoSpace(), "writers never waited in vain for space");
            assertEquals(400, before.flashWrites() + before.droppedEvictedBeforeWrite());
            // After a checkpoint, the runs it names wait when their chunks are evicted. (Few enough
            // that the held runs fit the reserve: early checkpoints are off in this test.)
            cache.checkpoint();
            for (int i = 400; i < 420; i++) {
                cache.put(file, i * 16384L, ChunkContent.buffer(17, i * 16384L, 16384));
            }
            await("the queue to drain", () -> cache.stats().queuedChunks() == 0);
            cache.cleanUp();
            long held = cache.stats().spaces().get(0).heldBlocks();
            assertTrue(held > 0, "runs named by the checkpoint must wait for the next one");
            cache.checkpoint();
            assertEquals(0, cache.stats().spaces().get(0).heldBlocks(), "the next checkpoint gives them back");
        }
    }

    @Test
    void aFillingCacheIsCheckpointedAsItFillsNotByTheClock() throws Exception {
        // An hour's interval: only the chunks written since the last checkpoint can make one due.
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> c.checkpointChangePercent(10)
                .checkpointIntervalMillis(3_600_000).minCheckpointIntervalMillis(0))) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "filling");
            for (int i = 0; i < 50; i++) {
                cache.put(file, i * 4096L, ChunkContent.buffer(19, i * 4096L, 4096));
            }
            await("50 chunks on flash", () -> cache.stats().flashWrites() == 50);
            // A crash now would bring back what the newest checkpoint names: at least 90% of the chunks.
            await("a checkpoint naming at least 45 of the 50 chunks",
                    () -> newestCheckpointEntries(fixture.deviceFiles.get(0)) >= 45);
        }
    }

    /** Entries of the newest valid checkpoint on a device (0 when it has none), read as recovery would. */
    private static long newestCheckpointEntries(Path devicePath) {
        // Read-only, as the checkpoint tool opens a device a running cache holds (and locks).
        try (BlockDevice device = BlockDevices.open(DeviceSpec.of(devicePath).withEngine(IoEngine.LIBAIO).asReadOnly())) {
            Superblock superblock = CheckpointReader.readSuperblock(device);
            long newestSequence = 0;
            long entries = 0;
            for (int area = 0; area < 2; area++) {
                try {
                    var image = CheckpointReader.read(device, superblock.layout(), area, superblock.instance(), 0, null);
                    if (image.header().sequence() > newestSequence) {
                        newestSequence = image.header().sequence();
                        entries = image.entryCount();
                    }
                } catch (CheckpointFormatException e) {
                    // empty, or being written right now: the other area counts
                }
            }
            return entries;
        } catch (java.io.IOException | CheckpointFormatException e) {
            throw new AssertionError("the cache's device has no readable superblock", e);
        }
    }

    @Test
    void aClosedCacheMissesAndNeverThrows() throws Exception {
        CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { });
        FlashChunkCache cache = fixture.cache;
        CachedFile file = file(cache, "closed");
        cache.put(file, 0, ChunkContent.buffer(18, 0, 4096));
        await("the write", () -> cache.stats().flashWrites() == 1);
        fixture.close();
        assertNull(cache.get(file, 0));
        cache.put(file, 4096, ChunkContent.buffer(18, 4096, 4096));
        cache.invalidatePosition(file, 0);
        cache.invalidateFile(file);
        cache.close();
        assertEquals(1, cache.stats().uncacheable(), "a put after close is refused, not queued");
    }

    @Test
    void uncacheableChunksAreCountedNotStored() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "u");
            cache.put(file, 100, ChunkContent.buffer(7, 100, 4096));
            cache.put(file, 0, ChunkContent.buffer(7, 0, 65537));
            cache.put(file, 4096, ByteBuffer.allocate(0));
            assertEquals(3, cache.stats().uncacheable());
            assertEquals(0, cache.stats().puts());
            assertNull(cache.get(file, 100));
        }
    }

    @Test
    void aFullQueueDropsNewPutsAndNeverHoldsMoreThanItsBound() throws Exception {
        try (CacheFixture fixture = CacheFixture.onFaultyCapi(Map.of("FLASHCHUNK_CBLK_LATENCY_US", "20000"), DEVICE_BYTES,
                c -> c.queueBytes(256 * 1024))) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "full");
            long maxQueued = 0;
            for (int i = 0; i < 200; i++) {
                cache.put(file, i * 65536L, ChunkContent.buffer(8, i * 65536L, 65536));
                maxQueued = Math.max(maxQueued, cache.stats().queuedBytes());
            }
            assertTrue(maxQueued <= 256 * 1024, "queued " + maxQueued);
            CacheStats stats = cache.stats();
            assertTrue(stats.droppedQueueFull() > 0, "drops " + stats.droppedQueueFull());
            await("the queue to drain", () -> cache.stats().queuedChunks() == 0);
            assertEquals(200 - cache.stats().droppedQueueFull(), cache.stats().flashWrites()
                    + cache.stats().droppedEvictedBeforeWrite() + cache.stats().putsAlreadyCached());
        }
    }

    @Test
    void cacheFillsNeverTakeMoreThanTheirShareOfTheDeviceQueue() throws Exception {
        try (CacheFixture fixture = CacheFixture.onFaultyCapi(Map.of("FLASHCHUNK_CBLK_LATENCY_US", "3000"), DEVICE_BYTES,
                c -> c.maxWritesInFlight(3).queueBytes(64L << 20))) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "share");
            for (int i = 0; i < 60; i++) {
                cache.put(file, i * 4096L, ChunkContent.buffer(15, i * 4096L, 4096));
            }
            await("60 writes", () -> cache.stats().flashWrites() == 60);
            BlockDevice device = cache.spaces().space(0).driver().device();
            assertEquals(3, device.stats().maxInFlight(), "writes used exactly their share of the 16 slots");
            assertEquals(3, ((CapiBlockDevice) device).chunkStats().maxAsyncWritesInFlight());
        }
    }

    @Test
    void chunksEvictedWhileQueuedAreNeverWritten() throws Exception {
        // A slow device and a flash space far smaller than the stream: most chunks are evicted in the queue.
        try (CacheFixture fixture = CacheFixture.onFaultyCapi(Map.of("FLASHCHUNK_CBLK_LATENCY_US", "5000"), 2L << 20,
                c -> c.queueBytes(64L << 20).maxWritesInFlight(1))) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "stream");
            for (int i = 0; i < 400; i++) {
                cache.put(file, i * 16384L, ChunkContent.buffer(9, i * 16384L, 16384));
            }
            await("the queue to drain", () -> cache.stats().queuedChunks() == 0);
            CacheStats stats = cache.stats();
            assertTrue(stats.droppedEvictedBeforeWrite() > 0, "dropped unwritten: " + stats.droppedEvictedBeforeWrite());
            assertEquals(400, stats.flashWrites() + stats.droppedEvictedBeforeWrite() + stats.droppedNoSpace());
        }
    }

    @Test
    void aChunkPutAgainWhileItsDeadPredecessorIsStillQueuedIsKeptApart() throws Exception {
        // Found by the stress test: two entries for one key in the queue at once (the first invalidated
        // while queued) must keep their own buffers.
        try (CacheFixture fixture = CacheFixture.onFaultyCapi(Map.of("FLASHCHUNK_CBLK_LATENCY_US", "100000"), DEVICE_BYTES,
                c -> c.maxWritesInFlight(1).readTimeoutMillis(5_000))) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "twice");
            cache.put(file, 0, ChunkContent.buffer(16, 4096, 4096)); // something else first, to keep the writer busy
            cache.put(file, 4096, ChunkContent.buffer(16, 4096, 4096));
            await("both indexed", () -> cache.entries() == 2);
            cache.invalidatePosition(file, 4096);
            cache.put(file, 4096, ChunkContent.buffer(16, 4096, 4096));
            await("the queue to drain", () -> cache.stats().queuedChunks() == 0);
            assertHit(cache, file, 16, 4096, 4096);
            assertEquals(0, cache.stats().checksumErrors());
            assertEquals(0, cache.stats().writeErrors());
        }
    }

    @Test
    void corruptedFlashBytesAreAMissNeverAWrongAnswer() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "c");
            cache.put(file, 0, ChunkContent.buffer(10, 0, 16384));
            await("the write", () -> cache.stats().flashWrites() == 1);
            ChunkEntry entry = cache.index().peek(ChunkKeys.key(file.id(), 0));
            long lba = ChunkLocation.lba(entry.location());
            try (FileChannel channel = FileChannel.open(fixture.deviceFiles.get(0), StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), lba * 4096 + 777);
            }
            assertNull(cache.get(file, 0));
            assertEquals(1, cache.stats().checksumErrors());
            assertEquals(0, cache.entries(), "a corrupt entry is dropped");
        }
    }

    /** read_in_caller_thread: hits read flash in the reader's thread, with the same checks. */
    @Test
    void readsInTheCallerThreadServeHitsAndCatchCorruption() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> c.readInCallerThread(true))) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "sync");
            for (int i = 0; i < 8; i++) {
                cache.put(file, i * 16384L, ChunkContent.buffer(12, i * 16384L, 16384));
            }
            await("the writes", () -> cache.stats().flashWrites() == 8);
            long deviceReads = fixture.cache.spaces().space(0).driver().device().stats().readOps();
            for (int i = 0; i < 8; i++) {
                assertHit(cache, file, 12, i * 16384L, 16384);
            }
            assertEquals(8, cache.stats().flashHits());
            assertEquals(deviceReads + 8, fixture.cache.spaces().space(0).driver().device().stats().readOps());
            ChunkEntry entry = cache.index().peek(ChunkKeys.key(file.id(), 0));
            try (FileChannel channel = FileChannel.open(fixture.deviceFiles.get(0), StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap(new byte[] {9, 9, 9}), ChunkLocation.lba(entry.location()) * 4096 + 100);
            }
            assertNull(cache.get(file, 0), "corrupted bytes are a miss");
            assertEquals(1, cache.stats().checksumErrors());
            fixture.cache.close();
            assertNull(cache.get(file, 16384), "a closed cache misses");
        }
    }

    @Test
    void anEntryInvalidatedOrMovedWhileItsReadIsInFlightFallsBack() throws Exception {
        try (CacheFixture fixture = CacheFixture.onFaultyCapi(Map.of("FLASHCHUNK_CBLK_LATENCY_US", "200000"), DEVICE_BYTES,
                c -> c.readTimeoutMillis(5_000))) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "race");
            cache.put(file, 0, ChunkContent.buffer(11, 0, 16384));
            cache.put(file, 16384, ChunkContent.buffer(11, 16384, 16384));
            await("two slow writes", () -> cache.stats().flashWrites() == 2);

            // Invalidated during the 200 ms read.
            CompletableFuture<CachedChunk> read =
                    CompletableFuture.supplyAsync(() -> cache.get(file, 0));
            Thread.sleep(50);
            cache.invalidatePosition(file, 0);
            assertNull(read.get(), "a read of an entry that died meanwhile must fall back");

            // Moved during the read: the commit point of a migration, a new location with a new stamp.
            ChunkEntry entry = cache.index().peek(ChunkKeys.key(file.id(), 16384));
            long before = entry.location();
            read = CompletableFuture.supplyAsync(() -> cache.get(file, 16384));
            Thread.sleep(50);
            assertTrue(entry.compareAndSetLocation(before, ChunkLocation.moved(before, 0, ChunkLocation.lba(before))));
            assertNull(read.get(), "a read of an entry that moved meanwhile must fall back");
            assertEquals(2, cache.stats().staleReads());
        }
    }

    @Test
    void aFailingDeviceNeverFailsAGet() throws Exception {
        // The first three writes format the device; failures start with the cache's own writes.
        try (CacheFixture fixture = CacheFixture.onFaultyCapi(Map.of("FLASHCHUNK_CBLK_FAIL_READ_EVERY", "2",
                "FLASHCHUNK_CBLK_FAIL_WRITE", "5,8,11,14,17,20,23,26"), DEVICE_BYTES,
                c -> { })) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "faulty");
            for (int i = 0; i < 30; i++) {
                cache.put(file, i * 4096L, ChunkContent.buffer(12, i * 4096L, 4096));
            }
            await("the queue to drain", () -> cache.stats().queuedChunks() == 0);
            int hits = 0;
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 30; i++) {
                    CachedChunk chunk = cache.get(file, i * 4096L);
                    if (chunk != null) {
                        hits++;
                        assertArrayEquals(ChunkContent.bytes(12, i * 4096L, 4096), ChunkContent.read(chunk));
                        chunk.release();
                    }
                }
            }
            CacheStats stats = cache.stats();
            assertTrue(stats.writeErrors() > 0 && stats.readErrors() > 0, stats.toString());
            assertTrue(hits > 0, "some reads still succeed");
        }
    }

    @Test
    void migrationMovesHotChunksToTheIdleSpaceAndPreservesThem() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(List.of(Backend.LIBAIO,
                Backend.LIBAIO), DEVICE_BYTES, c -> c.migrationBatch(1000))) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "m");
            for (int i = 0; i < 40; i++) {
                cache.put(file, i * 16384L, ChunkContent.buffer(13, i * 16384L, 16384));
            }
            await("40 writes", () -> cache.stats().flashWrites() == 40);
            long onSpace0 = cache.stats().spaces().get(0).usedBlocks() / 4;
            assertTrue(onSpace0 > 0);
            cache.spaces().space(0).reads().mark(1_000_000);
            int moved = cache.runMaintenance();
            assertEquals(onSpace0, moved, "every chunk on the overloaded space moves");
            assertEquals(0, cache.stats().spaces().get(0).usedBlocks());
            assertEquals(moved, cache.stats().migrations());
            for (int i = 0; i < 40; i++) {
                assertHit(cache, file, 13, i * 16384L, 16384);
            }
        }
    }

    @Test
    void theDramTierServesRepeatedHitsAndForgetsInvalidatedChunks() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> c.dramTierBytes(1L << 20).readAhead(true))) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "d");
            cache.put(file, 0, ChunkContent.buffer(14, 0, 16384));
            cache.put(file, 16384, ChunkContent.buffer(14, 16384, 16384));
            await("two writes", () -> cache.stats().flashWrites() == 2);
            assertHit(cache, file, 14, 0, 16384);
            await("the read-ahead of the next chunk", () -> cache.stats().readAheads() == 1);
            assertHit(cache, file, 14, 0, 16384);
            assertHit(cache, file, 14, 16384, 16384);
            assertEquals(1, cache.stats().flashHits());
            assertEquals(2, cache.stats().dramHits());
            cache.invalidatePosition(file, 0);
            assertNull(cache.get(file, 0));
        }
    }
}

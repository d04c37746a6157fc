package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.engine.EngineStats;
import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.health.DeviceBreaker;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.testing.Backend;
import io.flashchunk.testing.FaultyDevice;
import io.flashchunk.testing.ManualClock;
import io.flashchunk.testing.Scratch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the cache on the engine promises to the adapter, one behaviour at a time, on real O_DIRECT files. */
class SegmentFlashCacheTest {
    private static final long DEVICE_BYTES = 32L << 20;
    private static final int CHUNK = 16384;

    private final List<Path> scratch = new ArrayList<>();
    private Path device;
    private Path dataDir;
    private SegmentFlashCache cache;

    @BeforeEach
    void createDevice() throws IOException {
        device = Scratch.file("compact-cache", DEVICE_BYTES);
        scratch.add(device);
        dataDir = Files.createTempDirectory(Scratch.dir(), "sstables");
    }

    @AfterEach
    void cleanUp() throws IOException {
        if (cache != null) {
            cache.close();
        }
        for (Path path : scratch) {
            Files.deleteIfExists(path);
        }
        try (var files = Files.list(dataDir)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(dataDir);
    }

    private SegmentFlashCache open(Consumer<CacheConfig.Builder> settings) throws IOException {
        return open(settings, device -> device);
    }

    private SegmentFlashCache open(Consumer<CacheConfig.Builder> settings, UnaryOperator<BlockDevice> wrap)
            throws IOException {
        return open(settings, wrap, System::nanoTime);
    }

    private SegmentFlashCache open(Consumer<CacheConfig.Builder> settings, UnaryOperator<BlockDevice> wrap,
                                   LongSupplier clock) throws IOException {
        DeviceSpec spec = Backend.LIBAIO.spec(device).withQueueDepth(16);
        CacheConfig.Builder builder = CacheConfig.builder().device(spec)
                .segmentBytes(1 << 20).checkpointChangePercent(0);
        settings.accept(builder);
        BlockDevice opened = BlockDevices.open(spec);
        try {
            cache = new SegmentFlashCache(builder.build(), List.of(wrap.apply(opened)), clock);
        } catch (IOException | RuntimeException e) {
            opened.close();
            throw e;
        }
        return cache;
    }

    private SegmentFlashCache reopen() throws IOException {
        cache.close();
        cache = null;
        return open(c -> { });
    }

    /** A real file (its identity is checked at restart), registered with the cache. */
    private CachedFile sstable(String name) throws IOException {
        Path file = dataDir.resolve(name);
        if (!Files.exists(file)) {
            Files.write(file, new byte[4096]);
        }
        return cache.registerFile(FileIdentity.of(file));
    }

    private void putAll(CachedFile file, long seed, int chunks) throws InterruptedException {
        for (int i = 0; i < chunks; i++) {
            cache.put(file, (long) i * CHUNK, ChunkContent.buffer(seed, (long) i * CHUNK, CHUNK), System.nanoTime());
        }
        awaitWriter();
    }

    private void awaitWriter() throws InterruptedException {
        assertTrue(engineOf(cache).awaitWritten(20, java.util.concurrent.TimeUnit.SECONDS), "the writer took the queue");
    }

    private static io.flashchunk.cache.engine.CacheEngine engineOf(SegmentFlashCache cache) {
        return cache.engine();
    }

    private void assertHit(CachedFile file, long seed, long position) {
        CachedChunk chunk = cache.get(file, position, CHUNK, false);
        assertNotNull(chunk, "expected a hit for " + file + "@" + position);
        try {
            assertArrayEquals(ChunkContent.bytes(seed, position, CHUNK), ChunkContent.read(chunk), "bytes of " + file + "@" + position);
        } finally {
            chunk.release();
        }
    }

    private void assertMiss(CachedFile file, long position) {
        CachedChunk chunk = cache.get(file, position, CHUNK, false);
        if (chunk != null) {
            chunk.release();
        }
        assertNull(chunk, "expected a miss for " + file + "@" + position);
    }

    @Test
    void chunksAreServedFromMemoryAndFlashAndAllComeBackAfterACleanRestart() throws Exception {
        open(c -> { });
        CachedFile file = sstable("a-Data.db");
        assertMiss(file, 0);
        putAll(file, 1, 200); // about three 1 MiB segments and a part of a fourth
        for (int i = 0; i < 200; i++) {
            assertHit(file, 1, (long) i * CHUNK);
        }
        CacheStats stats = cache.stats();
        assertTrue(stats.flashHits() > 0 && stats.memoryHits() > 0, "hits from flash and from the open segment: " + stats);
        assertEquals(200, stats.engine().entries());
        assertTrue(stats.flashHitLatencyNanos().getTotalCount() >= 200);

        reopen();
        CachedFile again = sstable("a-Data.db");
        assertEquals(file.id(), again.id(), "the file comes back under its id");
        for (int i = 0; i < 200; i++) {
            assertHit(again, 1, (long) i * CHUNK);
        }
        stats = cache.stats();
        assertEquals(200, stats.recoveredEntries());
        assertEquals(200, stats.flashHits(), "after a restart every hit reads flash");
    }

    @Test
    void anInvalidatedPositionMissesAtOnceAndBytesReadBeforeItAreNeverAdmitted() throws Exception {
        open(c -> { });
        CachedFile file = sstable("b-Data.db");
        putAll(file, 2, 4);
        assertHit(file, 2, 0);
        long readBefore = System.nanoTime();
        cache.invalidatePosition(file, 0);
        assertMiss(file, 0);
        assertHit(file, 2, CHUNK);
        awaitWriter(); // the key is out of the index: only the invalidation's time can keep the offer out
        // A reader that read the old bytes before the invalidation offers them now: kept out.
        cache.put(file, 0, ChunkContent.buffer(2, 0, CHUNK), readBefore);
        awaitWriter();
        assertMiss(file, 0);
        assertEquals(1, cache.stats().staleReads(), "the old bytes were dropped by the writer");
        // The new bytes, read after the invalidation, are cached.
        cache.put(file, 0, ChunkContent.buffer(3, 0, CHUNK), System.nanoTime());
        awaitWriter();
        assertHit(file, 3, 0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> cache.invalidatePosition(file, 100));
        assertTrue(e.getMessage().contains("100") && e.getMessage().contains("b-Data.db"), e.getMessage());
    }

    /**
     * Has the writer start a checkpoint and holds it in the checkpoint's first device write until the
     * returned latch is counted down (undo the delay on {@code device} first).
     */
    private CountDownLatch holdWriterInACheckpoint(FaultyDevice device) throws InterruptedException {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        device.delay(FaultyDevice.Op.WRITE, () -> {
            writing.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        cache.engine().checkpointSoon();
        assertTrue(writing.await(20, TimeUnit.SECONDS), "the writer is in the checkpoint's first write");
        return release;
    }

    @Test
    void anInvalidationMissesAtOnceEvenWhileTheWriterThatRemovesItFromTheIndexIsHeld() throws Exception {
        FaultyDevice[] faulty = new FaultyDevice[1];
        open(c -> { }, device -> faulty[0] = new FaultyDevice(device));
        CachedFile file = sstable("held-Data.db");
        putAll(file, 10, 4);
        CountDownLatch release = holdWriterInACheckpoint(faulty[0]);
        try {
            cache.invalidatePosition(file, 0);
            assertMiss(file, 0); // still in the index: only the set of invalidated keys keeps it out
            assertHit(file, 10, CHUNK);
        } finally {
            faulty[0].delay(FaultyDevice.Op.WRITE, null);
            release.countDown();
        }
        awaitWriter();
        assertMiss(file, 0);
        assertEquals(3, cache.entries(), "the writer took the key out of the index");
    }

    /**
     * System.nanoTime, except in one thread once {@link #hold} is called: there its next reading is
     * taken, then the thread waits until {@link #release} before it gets it (as a thread descheduled
     * right after reading the clock).
     */
    private static final class HeldClock implements LongSupplier {
        private final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private volatile Thread held;

        void hold(Thread thread) {
            held = thread;
        }

        @Override
        public long getAsLong() {
            long now = System.nanoTime();
            if (Thread.currentThread() == held) {
                held = null;
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return now;
        }

        void awaitEntered() throws InterruptedException {
            assertTrue(entered.await(20, TimeUnit.SECONDS), "the held thread read the clock");
        }

        void release() {
            release.countDown();
        }
    }

    /** Runs {@code invalidation} in a thread of its own whose reading of the clock is held. */
    private static Thread invalidateHeld(HeldClock clock, Runnable invalidation) throws InterruptedException {
        Thread thread = new Thread(invalidation, "held-invalidation");
        clock.hold(thread);
        thread.start();
        clock.awaitEntered();
        return thread;
    }

    @Test
    void aSecondInvalidationKeepsTheKeyMissedAfterTheWriterTookTheFirst() throws Exception {
        FaultyDevice[] faulty = new FaultyDevice[1];
        HeldClock clock = new HeldClock();
        open(c -> { }, device -> faulty[0] = new FaultyDevice(device), clock);
        CachedFile file = sstable("twice-Data.db");
        putAll(file, 30, 2);
        // The chunk is not cached; it changes in its file, and a reader that read the new bytes offers them.
        cache.invalidatePosition(file, 0);
        awaitWriter();
        CountDownLatch release = holdWriterInACheckpoint(faulty[0]);
        cache.invalidatePosition(file, 0); // a first invalidation, queued behind the held checkpoint
        cache.put(file, 0, ChunkContent.buffer(31, 0, CHUNK), clock.getAsLong()); // read after it: admitted
        // It changes again: the second invalidation has the key missed, and is held before it takes its time.
        Thread second = invalidateHeld(clock, () -> cache.invalidatePosition(file, 0));
        faulty[0].delay(FaultyDevice.Op.WRITE, null);
        release.countDown();
        awaitWriter(); // the writer took the first invalidation, then appended the offer (older than neither)
        CountDownLatch releaseAgain = holdWriterInACheckpoint(faulty[0]);
        try {
            clock.release();
            second.join(TimeUnit.SECONDS.toMillis(20));
            assertFalse(second.isAlive());
            // The second invalidation has returned; the writer has not taken it: the offered bytes are old now.
            assertMiss(file, 0);
        } finally {
            faulty[0].delay(FaultyDevice.Op.WRITE, null);
            releaseAgain.countDown();
        }
        awaitWriter();
        assertMiss(file, 0);
        assertHit(file, 30, CHUNK);
    }

    @Test
    void aHitReadFromFlashAsItsKeyIsInvalidatedNeverStaysInTheDramTier() throws Exception {
        open(c -> { });
        CachedFile file = sstable("dram-race-Data.db");
        putAll(file, 32, 2);
        FaultyDevice[] faulty = new FaultyDevice[1];
        HeldClock clock = new HeldClock();
        cache.close();
        cache = null;
        open(c -> c.dramTierBytes(1L << 20), device -> faulty[0] = new FaultyDevice(device), clock);
        CachedFile again = sstable("dram-race-Data.db");
        // The invalidation is held right after it read the clock; a reader starts after that time.
        Thread invalidation = invalidateHeld(clock, () -> cache.invalidatePosition(again, 0));
        CountDownLatch reading = new CountDownLatch(1);
        CountDownLatch readRelease = new CountDownLatch(1);
        faulty[0].delay(FaultyDevice.Op.READ, () -> {
            reading.countDown();
            try {
                readRelease.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        CachedChunk[] read = new CachedChunk[1];
        Thread reader = new Thread(() -> {
            read[0] = cache.get(again, 0, CHUNK, false);
            reading.countDown(); // a miss without a flash read ends here
        }, "reader");
        reader.start();
        try {
            assertTrue(reading.await(20, TimeUnit.SECONDS), "the reader read flash or missed");
            clock.release();
            invalidation.join(TimeUnit.SECONDS.toMillis(20));
            assertFalse(invalidation.isAlive(), "the invalidation returned");
        } finally {
            faulty[0].delay(FaultyDevice.Op.READ, null);
            readRelease.countDown();
            reader.join(TimeUnit.SECONDS.toMillis(20));
        }
        if (read[0] != null) {
            read[0].release(); // a read that began before the invalidation returned may be served the old bytes
        }
        assertMiss(again, 0); // but nothing of them outlives the invalidation in the DRAM tier
        assertEquals(0, cache.stats().dramHits());
    }

    @Test
    void anInvalidatedFileMissesAtOnceIsForgottenAndIsNotRestored() throws Exception {
        open(c -> { });
        CachedFile old = sstable("c-Data.db");
        CachedFile other = sstable("d-Data.db");
        putAll(old, 4, 8);
        putAll(other, 5, 8);
        assertEquals(16, cache.stats().engine().entries());
        cache.invalidateFile(old);
        assertMiss(old, 0);
        assertTrue(engineOf(cache).awaitDeadFilesSwept(20, TimeUnit.SECONDS));
        assertEquals(8, cache.stats().engine().entries(), "the writer took the dead file's chunks out of the index");
        assertNull(cache.files().byId(old.id()), "an invalidated file has no entries to wait for: forgotten at once");
        CachedFile renewed = sstable("c-Data.db");
        assertNotEquals(old.id(), renewed.id(), "the same path is a new file");
        assertMiss(renewed, 0);

        reopen();
        assertNull(cache.files().byId(old.id()), "the checkpoint left the invalidated registration out");
        CachedFile otherAgain = sstable("d-Data.db");
        assertEquals(other.id(), otherAgain.id());
        for (int i = 0; i < 8; i++) {
            assertHit(otherAgain, 5, (long) i * CHUNK);
        }
    }

    /**
     * A dropped file's segments are free once the writer has swept its chunks out of the index and the
     * next checkpoint is durable: the checkpoint releases the segments left with no live chunk, and
     * the writer frees them without waiting to need them.
     */
    @Test
    void aDroppedFilesSegmentsAreFreeAfterTheNextCheckpoint() throws Exception {
        open(c -> { });
        CachedFile dropped = sstable("g-Data.db");
        CachedFile kept = sstable("h-Data.db");
        putAll(dropped, 8, 250); // three segments of 1 MiB (60-odd chunks each) and most of a fourth
        putAll(kept, 9, 60);
        long freeBefore = cache.spaceStats().get(0).segments(SegmentState.FREE);
        long cachedBefore = cache.stats().engine().entries();
        long checkpointsBefore = cache.stats().engine().checkpoints();
        assertEquals(0, cache.stats().engine().deadSpace().deadRecords(), "nothing replaced or dropped yet");
        cache.invalidateFile(dropped);
        assertTrue(engineOf(cache).awaitDeadFilesSwept(20, TimeUnit.SECONDS));
        assertEquals(60, cache.stats().engine().entries(), "the dropped file's chunks left the index");
        EngineStats.DeadSpace swept = cache.stats().engine().deadSpace();
        assertEquals(cachedBefore - 60, swept.deadFileChunksRemoved(), "every chunk of the file, found by the sweep");
        assertEquals(swept.deadFileChunksRemoved(), swept.deadRecords(), "its records hold flash until reclaimed");
        assertEquals(0, swept.deadFilesPending());
        long freeNow = cache.spaceStats().get(0).segments(SegmentState.FREE);
        if (cache.stats().engine().checkpoints() == checkpointsBefore) { // (a slow machine: one for dead space may come)
            assertEquals(freeBefore, freeNow, "not before a checkpoint");
        }
        assertTrue(cache.checkpointNow().contains("checkpoint written"));
        assertTrue(engineOf(cache).awaitWritten(20, TimeUnit.SECONDS));
        long freed = cache.spaceStats().get(0).segments(SegmentState.FREE) - freeBefore;
        assertTrue(freed >= 3, "the segments of only its chunks are free: " + freed);
        EngineStats.DeadSpace reclaimed = cache.stats().engine().deadSpace();
        assertTrue(reclaimed.mostlyDeadSegmentsDoomed() >= freed, "doomed as mostly dead: " + reclaimed);
        assertTrue(reclaimed.deadRecords() <= swept.deadRecords() - 60 * freed,
                "the freed segments' records are no longer dead space: " + reclaimed);
        for (int i = 0; i < 60; i++) {
            assertHit(kept, 9, (long) i * CHUNK);
        }
    }

    @Test
    void aFileChangedWhileTheCacheWasDownIsNotRestoredAndItsChunksAreNeverServed() throws Exception {
        open(c -> { });
        CachedFile file = sstable("e-Data.db");
        putAll(file, 6, 8);
        cache.close();
        cache = null;
        Files.write(dataDir.resolve("e-Data.db"), new byte[8192], StandardOpenOption.APPEND);
        open(c -> { });
        assertNull(cache.files().byId(file.id()));
        CachedFile changed = sstable("e-Data.db");
        assertNotEquals(file.id(), changed.id());
        for (int i = 0; i < 8; i++) {
            assertMiss(changed, (long) i * CHUNK);
        }
    }

    @Test
    void theDramTierServesRepeatedHitsAndForgetsInvalidatedChunks() throws Exception {
        open(c -> c.dramTierBytes(1L << 20));
        CachedFile file = sstable("f-Data.db");
        putAll(file, 7, 4);
        assertHit(file, 7, 0);
        assertHit(file, 7, 0);
        assertEquals(1, cache.stats().dramHits(), "the second hit came from DRAM");
        cache.invalidatePosition(file, 0);
        assertMiss(file, 0);
        assertHit(file, 7, CHUNK);
        cache.invalidateFile(file);
        assertMiss(file, CHUNK);
    }

    @Test
    void anOperatorsCheckpointIsDurableAndAClosedCacheMissesAndNeverThrows() throws Exception {
        open(c -> { });
        CachedFile file = sstable("g-Data.db");
        putAll(file, 8, 100);
        long before = cache.stats().engine().checkpoints();
        long sequenceBefore = cache.stats().engine().lastCheckpointSequence();
        assertTrue(cache.checkpointNow().contains("checkpoint written"));
        assertEquals(before + 1, cache.stats().engine().checkpoints());
        assertTrue(cache.stats().engine().lastCheckpointSequence() > sequenceBefore, "the new checkpoint's sequence is shown");
        assertFalse(cache.closedWithCheckpoint(), "not closed yet");
        cache.close();
        assertTrue(cache.closedWithCheckpoint(), "a healthy device's close ends with a durable checkpoint");
        assertMiss(file, 0);
        cache.put(file, 0, ChunkContent.buffer(8, 0, CHUNK), System.nanoTime());
        assertEquals(1, cache.stats().uncacheable());
        cache.close();
        cache = null;
    }

    @Test
    void theBytesWrittenAreTheDevicesCountCheckpointsIncluded() throws Exception {
        open(c -> { });
        CachedFile file = sstable("w-Data.db");
        putAll(file, 9, 200); // three 1 MiB segments sealed and part of a fourth
        CacheStats before = cache.stats();
        assertTrue(before.engine().segmentsSealed() >= 3, "segments sealed: " + before);
        assertTrue(cache.checkpointNow().contains("checkpoint written"));
        CacheStats after = cache.stats();
        long checkpointBytes = engineOf(cache).lastCheckpoint().bytes();
        assertTrue(checkpointBytes > 0);
        // The checkpoint writes its body, header and the open segment's records and summary: all counted.
        assertTrue(after.deviceBytesWritten() - before.deviceBytesWritten() >= checkpointBytes,
                "the checkpoint's " + checkpointBytes + " bytes are counted: " + before.deviceBytesWritten() + " then "
                        + after.deviceBytesWritten());
        assertEquals(before.engine().flashBytesWritten(), after.engine().flashBytesWritten(),
                "the sealed segments' count leaves checkpoints out");
        assertEquals(after.spaces().get(0).bytesWritten(), after.deviceBytesWritten());
    }

    /** Doomed segments still hold chunks: the used bytes count them, the cache's as each space's. */
    @Test
    void doomedSegmentsCountAsUsedInTheCacheAsInEachSpace() throws Exception {
        open(c -> { });
        CachedFile file = sstable("u-Data.db");
        putAll(file, 10, 1800); // about 29 of the 31 segments: past the reclaim order's room
        CacheStats stats = cache.stats();
        assertTrue(engineOf(cache).table().count(0, io.flashchunk.cache.space.SegmentState.DOOMED) > 0,
                "segments doomed as the order gave them up: " + stats);
        assertEquals(stats.spaces().get(0).usedBlocks(), stats.usedBlocks(), stats.toString());
    }

    @Test
    void aChunkLongerThanTheReaderExpectsIsAMiss() throws Exception {
        open(c -> { });
        CachedFile file = sstable("h-Data.db");
        putAll(file, 9, 1);
        CachedChunk shorter = cache.get(file, 0, 4096, false);
        assertNull(shorter, "a 16 KiB record is never cut to a 4 KiB reader's length");
        assertFalse(cache.stats().hits() > 0);
        assertHit(file, 9, 0);
    }

    /**
     * Closes and opens the cache again, so that every chunk is read from flash; returns the device
     * opened, once the writer has read the recovered segments' summaries (its reads are then done).
     */
    private BlockDevice reopenOnFlash() throws Exception {
        cache.close();
        cache = null;
        BlockDevice[] opened = new BlockDevice[1];
        open(c -> { }, device -> opened[0] = device);
        assertTrue(engineOf(cache).awaitRecoveredSampled(20, java.util.concurrent.TimeUnit.SECONDS));
        return opened[0];
    }

    private CachedChunk assertHitWithFollower(CachedFile file, long seed, long position) {
        CachedChunk chunk = cache.get(file, position, CHUNK, true);
        assertNotNull(chunk, "expected a hit for " + file + "@" + position);
        assertArrayEquals(ChunkContent.bytes(seed, position, CHUNK), ChunkContent.read(chunk), "bytes of " + file + "@" + position);
        return chunk;
    }

    @Test
    void aHitBringsItsFilesNextChunkAlongWhenThatRecordFollowsAndOneReadServesBoth() throws Exception {
        open(c -> { });
        CachedFile file = sstable("i-Data.db");
        putAll(file, 11, 2);
        BlockDevice device = reopenOnFlash();
        CachedFile again = sstable("i-Data.db");
        long reads = device.stats().readOps();

        CachedChunk first = assertHitWithFollower(again, 11, 0);
        FollowingChunk follower = first.takeFollower();
        assertNotNull(follower, "the next chunk came along");
        assertEquals(CHUNK, follower.position());
        first.release(); // the follower keeps the shared buffer
        assertEquals(1, cache.engine().reader().outstandingBuffers(), "the follower still holds the read's buffer");
        CachedChunk second = cache.claim(again, follower);
        assertNotNull(second);
        assertArrayEquals(ChunkContent.bytes(11, CHUNK, CHUNK), ChunkContent.read(second));
        second.release();
        assertEquals(0, cache.engine().reader().outstandingBuffers(), "released once both are done");
        assertEquals(reads + 1, device.stats().readOps(), "one I/O for both chunks");
        CacheStats stats = cache.stats();
        assertEquals(2, stats.flashHits());
        assertEquals(1, stats.engine().pairedReads());
        assertEquals(1, stats.followersServed());

        CachedChunk alone = cache.get(again, 0, CHUNK, false);
        assertNull(alone.takeFollower(), "not asked for, no follower");
        alone.release();
        CachedChunk last = assertHitWithFollower(again, 11, CHUNK);
        assertNull(last.takeFollower(), "the file's last cached chunk has no next one");
        last.release();
    }

    @Test
    void aFollowerComesOnlyWhenTheNextChunksRecordLiesRightAfterAndIsAlwaysRight() throws Exception {
        open(c -> { });
        CachedFile forward = sstable("j-Data.db");
        CachedFile backward = sstable("k-Data.db");
        putAll(forward, 12, 12);
        for (int i = 11; i >= 0; i--) {
            cache.put(backward, (long) i * CHUNK, ChunkContent.buffer(13, (long) i * CHUNK, CHUNK), System.nanoTime());
        }
        awaitWriter();
        reopenOnFlash();
        CachedFile forwardAgain = sstable("j-Data.db");
        CachedFile backwardAgain = sstable("k-Data.db");
        for (int i = 0; i + 1 < 12; i++) {
            long position = (long) i * CHUNK;
            CachedChunk hit = assertHitWithFollower(backwardAgain, 13, position);
            assertNull(hit.takeFollower(), "chunk " + i + "'s next record lies before it");
            hit.release();
            hit = assertHitWithFollower(forwardAgain, 12, position);
            FollowingChunk follower = hit.takeFollower();
            assertNotNull(follower, "chunk " + i + " written just before its next one");
            CachedChunk next = cache.claim(forwardAgain, follower);
            assertArrayEquals(ChunkContent.bytes(12, position + CHUNK, CHUNK), ChunkContent.read(next));
            next.release();
            hit.release();
        }
        assertEquals(11, cache.stats().followersServed());
        assertEquals(0, cache.stats().engine().damagedRecords());
    }

    @Test
    void aFollowerInvalidatedBeforeItsReaderAsksIsNeverServed() throws Exception {
        FaultyDevice[] faulty = new FaultyDevice[1];
        open(c -> { });
        CachedFile file = sstable("l-Data.db");
        putAll(file, 14, 4);
        cache.close();
        cache = null;
        open(c -> { }, device -> faulty[0] = new FaultyDevice(device));
        CachedFile again = sstable("l-Data.db");

        // Invalidated, and the writer has taken the key out of the index.
        CachedChunk first = assertHitWithFollower(again, 14, 0);
        FollowingChunk follower = first.takeFollower();
        assertNotNull(follower);
        cache.invalidatePosition(again, CHUNK);
        awaitWriter();
        assertNull(cache.claim(again, follower), "the chunk changed in its file after the read");
        follower.release(); // a second release does nothing
        first.release();

        // Invalidated while the writer is held: still in the index, only the set of invalidated keys keeps it out.
        CachedChunk second = assertHitWithFollower(again, 14, 2L * CHUNK);
        FollowingChunk held = second.takeFollower();
        assertNotNull(held);
        CountDownLatch release = holdWriterInACheckpoint(faulty[0]);
        try {
            cache.invalidatePosition(again, 3L * CHUNK);
            assertNull(cache.claim(again, held));
        } finally {
            faulty[0].delay(FaultyDevice.Op.WRITE, null);
            release.countDown();
        }
        second.release();
        assertEquals(0, cache.stats().followersServed());
        assertEquals(0, cache.engine().reader().outstandingBuffers(), "refused followers gave their buffers back");
    }

    @Test
    void aFollowerOfAnInvalidatedFileIsNeverServed() throws Exception {
        open(c -> { });
        CachedFile file = sstable("m-Data.db");
        putAll(file, 15, 2);
        reopenOnFlash();
        CachedFile again = sstable("m-Data.db");
        CachedChunk first = assertHitWithFollower(again, 15, 0);
        FollowingChunk follower = first.takeFollower();
        assertNotNull(follower);
        cache.invalidateFile(again);
        assertNull(cache.claim(again, follower));
        first.release();
    }

    @Test
    void chunksOfDifferentSizesAndAShortLastChunkShareOneCacheFromMemoryAndFromFlash() throws Exception {
        open(c -> { });
        int[] sizes = {4096, 16384, 65536};
        CachedFile[] files = {sstable("small-Data.db"), sstable("medium-Data.db"), sstable("large-Data.db")};
        for (int f = 0; f < 3; f++) {
            for (int i = 0; i < 10; i++) {
                cache.put(files[f], (long) i * sizes[f], ChunkContent.buffer(f, (long) i * sizes[f], sizes[f]), System.nanoTime());
            }
        }
        // The last chunk of a file is shorter than the chunk size.
        cache.put(files[2], 10L * 65536, ChunkContent.buffer(2, 10L * 65536, 5000), System.nanoTime());
        awaitWriter();
        for (int round = 0; round < 2; round++) {
            for (int f = 0; f < 3; f++) {
                for (int i = 0; i < 10; i++) {
                    assertChunk(files[f], f, (long) i * sizes[f], sizes[f], sizes[f]);
                }
            }
            assertChunk(files[2], 2, 10L * 65536, 65536, 5000);
            if (round == 0) {
                long memoryHits = cache.stats().memoryHits();
                assertTrue(memoryHits > 0, "the open segment served from memory: " + cache.stats());
                reopen(); // then all from flash
                files = new CachedFile[] {sstable("small-Data.db"), sstable("medium-Data.db"), sstable("large-Data.db")};
            }
        }
        assertEquals(31, cache.stats().flashHits(), "after the restart every chunk came from flash");
    }

    /** A hit of exactly {@code length} bytes of the file's chunk at {@code position}, asked for with {@code maxLength}. */
    private void assertChunk(CachedFile file, long seed, long position, int maxLength, int length) {
        CachedChunk chunk = cache.get(file, position, maxLength, false);
        assertNotNull(chunk, "expected a hit for " + file + "@" + position);
        try {
            assertArrayEquals(ChunkContent.bytes(seed, position, length), ChunkContent.read(chunk), file + "@" + position);
        } finally {
            chunk.release();
        }
    }

    @Test
    void uncacheableChunksAreCountedNotStored() throws Exception {
        open(c -> { });
        CachedFile file = sstable("u-Data.db");
        cache.put(file, 100, ChunkContent.buffer(7, 100, 4096), System.nanoTime()); // not a chunk's start
        cache.put(file, 0, ChunkContent.buffer(7, 0, 65537), System.nanoTime()); // longer than any chunk
        cache.put(file, 4096, ByteBuffer.allocate(0), System.nanoTime());
        awaitWriter();
        assertEquals(3, cache.stats().uncacheable());
        assertEquals(0, cache.stats().puts());
        assertEquals(0, cache.entries());
        assertMiss(file, 0);
    }

    @Test
    void aFullQueueDropsNewPutsAndNeverHoldsMoreThanItsBound() throws Exception {
        FaultyDevice[] faulty = new FaultyDevice[1];
        open(c -> c.queueBytes(256 * 1024), device -> faulty[0] = new FaultyDevice(device));
        CachedFile file = sstable("full-Data.db");
        CountDownLatch release = holdWriterInACheckpoint(faulty[0]);
        long maxQueued = 0;
        try {
            for (int i = 0; i < 200; i++) {
                cache.put(file, i * 65536L, ChunkContent.buffer(8, i * 65536L, 65536), System.nanoTime());
                maxQueued = Math.max(maxQueued, cache.stats().engine().queuedBytes());
            }
        } finally {
            faulty[0].delay(FaultyDevice.Op.WRITE, null);
            release.countDown();
        }
        assertEquals(256 * 1024, maxQueued, "four 64 KiB chunks fill the queue; no put goes past it");
        assertEquals(196, cache.stats().engine().queueFull(), "the writer was held: every later put is dropped");
        awaitWriter();
        assertEquals(0, cache.stats().engine().queuedBytes());
        assertEquals(4, cache.entries(), "what the queue held is cached");
    }

    @ParameterizedTest(name = "reads in the caller thread: {0}")
    @ValueSource(booleans = {false, true})
    void corruptedFlashBytesAreAMissNeverAWrongAnswer(boolean inCallerThread) throws Exception {
        open(c -> c.readInCallerThread(inCallerThread));
        CachedFile file = sstable("corrupt-Data.db");
        putAll(file, 10, 8);
        cache.close();
        cache = null;
        open(c -> c.readInCallerThread(inCallerThread));
        CachedFile again = sstable("corrupt-Data.db");
        for (int i = 1; i < 8; i++) {
            assertHit(again, 10, (long) i * CHUNK);
        }
        // Flip bytes inside chunk 0's record on the device file (found by its bytes: the engine's
        // addresses are its own).
        damageOnDevice(ChunkContent.bytes(10, 0, CHUNK), 777);
        assertMiss(again, 0);
        assertEquals(1, cache.stats().engine().damagedRecords(), cache.stats().toString());
        awaitWriter();
        assertEquals(7, cache.entries(), "the damaged record's entry is dropped");
        assertMiss(again, 0);
        assertEquals(1, cache.stats().engine().damagedRecords(), "a miss now, without reading the damaged bytes again");
        assertHit(again, 10, CHUNK);
    }

    /**
     * After a restart the writer reads the recovered segments' summaries for samples in its spare
     * time, so that segments of files changed while the cache was down are found dead.
     */
    @Test
    void theWriterSamplesEveryRecoveredSegmentAfterARestart() throws Exception {
        open(c -> { });
        putAll(sstable("sampled-Data.db"), 23, 150); // two and a half 1 MiB segments
        SegmentFlashCache again = reopen();
        assertTrue(again.entries() >= 120, "segments came back: " + again.entries());
        assertTrue(engineOf(again).awaitRecoveredSampled(20, java.util.concurrent.TimeUnit.SECONDS),
                "the writer looked at every recovered segment");
    }

    /** A next chunk whose record is damaged on flash is not brought along: its reader misses and reads the file. */
    @Test
    void aFollowerWithDamagedBytesIsNeverServed() throws Exception {
        open(c -> { });
        CachedFile file = sstable("damaged-follower-Data.db");
        putAll(file, 12, 2);
        reopenOnFlash();
        damageOnDevice(ChunkContent.bytes(12, CHUNK, CHUNK), 999);
        CachedFile again = sstable("damaged-follower-Data.db");
        CachedChunk first = assertHitWithFollower(again, 12, 0);
        FollowingChunk follower = first.takeFollower();
        first.release();
        if (follower != null) {
            assertNull(cache.claim(again, follower), "a damaged follower is not served");
        }
        assertMiss(again, CHUNK);
        assertTrue(cache.stats().engine().damagedRecords() >= 1, cache.stats().toString());
    }

    /**
     * A checkpoint is written each time segments making up {@code checkpoint_change_percent} of the
     * flash have been written, whatever the interval: a crash then loses about that share at most.
     */
    @Test
    void aFillingCacheIsCheckpointedAsItFillsNotByTheClock() throws Exception {
        open(c -> c.checkpointChangePercent(10).checkpointIntervalMillis(3_600_000));
        long segments = cache.capacityBytes() >> 20; // 1 MiB segments
        int perSegment = (1 << 20) / RecordFormat.recordBytes(CHUNK, RecordAddress.MIN_SECTOR_BYTES);
        CachedFile file = sstable("filling-Data.db");
        // A third of the flash, a segment's worth at a time, each time until the checkpoint it made due
        // (a full one's end runs beside the writer) has ended.
        for (long chunk = 0; chunk < perSegment * segments / 3; chunk++) {
            cache.put(file, chunk * CHUNK, ChunkContent.buffer(13, chunk * CHUNK, CHUNK), System.nanoTime());
            if ((chunk + 1) % perSegment == 0) {
                assertTrue(engineOf(cache).awaitCheckpointsSettled(20, java.util.concurrent.TimeUnit.SECONDS));
            }
        }
        long expected = (segments / 3) / Math.max(1, segments / 10);
        long checkpoints = cache.stats().engine().checkpoints();
        assertTrue(checkpoints >= expected - 1 && checkpoints <= expected + 1,
                checkpoints + " checkpoints for a third of " + segments + " segments at 10%; expected about " + expected);
    }

    /**
     * A hung device: the reads that time out count as failed hit reads; past the bound of reads in
     * flight a hit is given up without a read, which the breaker still judges as a failed read (so the
     * device is taken out of use once none of its reads can start) but which is counted as no read.
     */
    @Test
    void hitsGivenUpOnABusyDeviceAreJudgedByTheBreakerButCountedAsNoRead() throws Exception {
        FaultyDevice[] faulty = new FaultyDevice[1];
        ManualClock clock = new ManualClock();
        open(c -> c.readTimeoutMillis(20).readInCallerThread(false), opened -> faulty[0] = new FaultyDevice(opened),
                clock);
        CachedFile file = sstable("hung-Data.db");
        putAll(file, 41, 150); // two and a half 1 MiB segments
        int chunks = 40; // read from the first, sealed: none of them is served from a write buffer
        CompletableFuture<Void> hung = faulty[0].hang(FaultyDevice.Op.READ);
        try {
            // The clock stands still: the breaker judges no period, so every hit tries the device.
            for (int i = 0; i < 200; i++) {
                assertMiss(file, (long) (i % chunks) * CHUNK);
            }
            CacheStats.SpaceStats device = cache.spaceStats().get(0);
            long timedOut = cache.stats().engine().readTimeouts();
            long busy = cache.stats().engine().busyMisses();
            assertTrue(timedOut > 0 && busy > 0 && timedOut + busy == 200, "timed out " + timedOut + ", busy " + busy);
            assertEquals(timedOut, device.failedHitReads(), "only reads that were made count as failed hit reads");
            assertEquals(0, device.hitReads());
            // the clock stands still: each read made counts 1 ns; a hit given up is a busy miss, no read
            assertEquals(timedOut, device.hitReadNanos());
            assertEquals(busy, device.busyMisses(), "the device's busy misses are the engine's, one device");
            assertFalse(device.bypassed());

            // Two periods in a row with only given-up hits in them: judged failing, the device is out of use.
            for (int period = 0; period < 3 && !cache.spaceStats().get(0).bypassed(); period++) {
                clock.advance(Duration.ofSeconds(2));
                for (int i = 0; i < 2 * DeviceBreaker.MIN_SAMPLES; i++) {
                    assertMiss(file, (long) (i % chunks) * CHUNK);
                }
            }
            device = cache.spaceStats().get(0);
            assertTrue(device.bypassed(), "the breaker took the hung device out of use: " + device);
            assertEquals(timedOut, cache.stats().engine().readTimeouts(), "no read was made past the bound");
            assertEquals(timedOut, device.failedHitReads(), "given-up hits are not failed reads: " + device);
        } finally {
            hung.complete(null);
        }
    }

    /** A device failing its writes, then its reads: every get is a right hit or a miss, never an exception. */
    @Test
    void aFailingDeviceNeverFailsAGet() throws Exception {
        FaultyDevice[] faulty = new FaultyDevice[1];
        open(c -> { }, opened -> faulty[0] = new FaultyDevice(opened));
        int chunks = 150; // two and a half 1 MiB segments
        faulty[0].failing(FaultyDevice.Op.WRITE, true);
        CachedFile unwritten = sstable("unwritten-Data.db");
        putAll(unwritten, 21, chunks);
        assertTrue(cache.stats().writeErrors() > 0, "segment writes failed: " + cache.stats());
        assertEachHitRight(unwritten, 21, chunks);

        faulty[0].failing(FaultyDevice.Op.WRITE, false);
        CachedFile written = sstable("written-Data.db");
        putAll(written, 22, chunks);
        assertEachHitRight(written, 22, chunks);
        faulty[0].failing(FaultyDevice.Op.READ, true);
        assertEachHitRight(written, 22, chunks);
        assertTrue(cache.stats().engine().readErrors() > 0, "flash reads failed: " + cache.stats());
        assertEquals(0, cache.stats().getFailures(), "every failure was a device's, met as one");
        faulty[0].failing(FaultyDevice.Op.READ, false);
        assertEachHitRight(written, 22, chunks);

        faulty[0].failing(FaultyDevice.Op.WRITE, true);
        cache.close();
        assertFalse(cache.closedWithCheckpoint(), "the checkpoint at close could not be written: " + cache.stats());
    }

    /** Gets each chunk: a hit must be its bytes; a miss is fine. */
    private void assertEachHitRight(CachedFile file, long seed, int chunks) {
        for (int i = 0; i < chunks; i++) {
            CachedChunk chunk = cache.get(file, (long) i * CHUNK, CHUNK, false);
            if (chunk != null) {
                try {
                    assertArrayEquals(ChunkContent.bytes(seed, (long) i * CHUNK, CHUNK), ChunkContent.read(chunk),
                            "bytes of " + file + "@" + (long) i * CHUNK);
                } finally {
                    chunk.release();
                }
            }
        }
    }

    /** Overwrites three bytes {@code at} bytes into the first copy of {@code chunk} in the device file. */
    private void damageOnDevice(byte[] chunk, int at) throws IOException {
        long offset = offsetOnDevice(chunk);
        try (FileChannel channel = FileChannel.open(device, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {9, 9, 9}), offset + at);
        }
    }

    /** Where {@code bytes} first appear in the device file. */
    private long offsetOnDevice(byte[] bytes) throws IOException {
        byte[] image = Files.readAllBytes(device);
        byte[] head = Arrays.copyOf(bytes, 64);
        for (int i = 0; i + bytes.length <= image.length; i++) {
            if (image[i] == head[0] && Arrays.equals(image, i, i + head.length, head, 0, head.length)) {
                return i;
            }
        }
        throw new AssertionError("the chunk is not on the device");
    }

    /**
     * A hot SSTable compacted away: its chunks were read often, and its successor's are read once
     * before they are offered. Admission must not weigh the new chunks against the dead file's, or
     * the successor would stay out of flash until the sketch forgot the old reads.
     */
    @Test
    void aCompactedFilesHotChunksDoNotKeepItsSuccessorOutOfFlash() throws Exception {
        device = Scratch.file("compact-small", 6L << 20); // about 300 chunks of 16 KiB
        scratch.add(device);
        FaultyDevice[] faulty = new FaultyDevice[1];
        open(c -> { }, flash -> faulty[0] = new FaultyDevice(flash));
        CachedFile old = sstable("old-Data.db");
        int chunks = 400;
        for (int i = 0; i < chunks; i++) {
            assertMiss(old, (long) i * CHUNK);
            cache.put(old, (long) i * CHUNK, ChunkContent.buffer(40, (long) i * CHUNK, CHUNK), System.nanoTime());
        }
        awaitWriter();
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < chunks; i++) {
                CachedChunk chunk = cache.get(old, (long) i * CHUNK, CHUNK, false);
                if (chunk != null) {
                    chunk.release();
                }
            }
        }
        // The writer held before the file dies: the offers are judged against the victims published before.
        CountDownLatch release = holdWriterInACheckpoint(faulty[0]);
        cache.invalidateFile(old);
        CachedFile successor = sstable("successor-Data.db");
        try {
            for (int i = 0; i < 200; i++) {
                assertMiss(successor, (long) i * CHUNK);
                cache.put(successor, (long) i * CHUNK, ChunkContent.buffer(41, (long) i * CHUNK, CHUNK), System.nanoTime());
            }
        } finally {
            faulty[0].delay(FaultyDevice.Op.WRITE, null);
            release.countDown();
        }
        awaitWriter();
        int hits = 0;
        for (int i = 0; i < 200; i++) {
            CachedChunk chunk = cache.get(successor, (long) i * CHUNK, CHUNK, false);
            if (chunk != null) {
                assertArrayEquals(ChunkContent.bytes(41, (long) i * CHUNK, CHUNK), ChunkContent.read(chunk));
                chunk.release();
                hits++;
            }
        }
        assertTrue(hits >= 190, "the successor's chunks were admitted: " + hits + " of 200 cached; " + cache.stats());
    }

    /** A quarter of a chunk of the seed's bytes, then zeros: LZ4 stores it in about a quarter of its bytes. */
    private static final int COMPRESSIBLE_RANDOM = CHUNK / 4;

    private void putCompressible(CachedFile file, long seed, int from, int to) throws InterruptedException {
        for (int i = from; i < to; i++) {
            long position = (long) i * CHUNK;
            cache.put(file, position, ByteBuffer.wrap(ChunkContent.compressible(seed, position, CHUNK, COMPRESSIBLE_RANDOM)),
                    System.nanoTime());
        }
        awaitWriter();
    }

    private void assertCompressibleHit(CachedFile file, long seed, long position) {
        CachedChunk chunk = cache.get(file, position, CHUNK, false);
        assertNotNull(chunk, "expected a hit for " + file + "@" + position);
        try {
            assertArrayEquals(ChunkContent.compressible(seed, position, CHUNK, COMPRESSIBLE_RANDOM), ChunkContent.read(chunk),
                    "bytes of " + file + "@" + position);
        } finally {
            chunk.release();
        }
    }

    @Test
    void aFileStoredCompressedTakesAFractionOfTheFlashAndIsServedWholeFromMemoryFlashAndAfterARestart() throws Exception {
        open(c -> { });
        CachedFile compressed = sstable("lz4-Data.db");
        CachedFile raw = sstable("raw-Data.db");
        compressed.storeCompressed(true);
        putCompressible(compressed, 21, 0, 200);
        putCompressible(raw, 22, 0, 200);
        for (int i = 0; i < 200; i++) {
            assertCompressibleHit(compressed, 21, (long) i * CHUNK);
            assertCompressibleHit(raw, 22, (long) i * CHUNK);
        }
        CacheStats stats = cache.stats();
        EngineStats.Compression compression = stats.engine().compression();
        assertEquals(200, compression.compressedChunks(), "only the file set to be stored compressed: " + compression);
        assertEquals(200L * CHUNK, compression.chunkBytes());
        assertTrue(compression.payloadBytes() < 200L * (COMPRESSIBLE_RANDOM + CHUNK / 16), compression.toString());
        assertTrue(stats.flashHits() > 0 && compression.decompressed() > 0, "hits decompressed from flash: " + stats);
        assertTrue(stats.memoryHits() > 0, "and from the segment still in memory: " + stats);
        assertEquals(0, raw.expectedRecordBytes(), "a file not stored compressed reads the longest record: nothing learnt");
        assertEquals(0, stats.engine().damagedRecords() + stats.engine().refusedRecords());

        reopen();
        CachedFile compressedAgain = sstable("lz4-Data.db");
        CachedFile rawAgain = sstable("raw-Data.db");
        assertFalse(compressedAgain.storeCompressed(), "the cache's user says it again after a restart");
        for (int i = 0; i < 200; i++) {
            assertCompressibleHit(compressedAgain, 21, (long) i * CHUNK);
            assertCompressibleHit(rawAgain, 22, (long) i * CHUNK);
        }
        assertEquals(400, cache.stats().flashHits());
        assertEquals(200, cache.stats().engine().compression().decompressed());
    }

    @Test
    void aHitReadsAboutWhatItsFilesRecordsTakeAndReadsWholeOneThatGoesOnPastIt() throws Exception {
        open(c -> { });
        CachedFile file = sstable("mixed-Data.db");
        file.storeCompressed(true);
        putCompressible(file, 23, 0, 20);
        // Chunk 20 does not compress: stored as it is, a record four times as long as its file's others.
        cache.put(file, 20L * CHUNK, ChunkContent.buffer(23, 20L * CHUNK, CHUNK), System.nanoTime());
        awaitWriter();
        assertEquals(1, cache.stats().engine().compression().notWorthCompressing());
        BlockDevice device = reopenOnFlash();
        CachedFile again = sstable("mixed-Data.db");
        again.storeCompressed(true); // as the adapter says at each registration
        assertEquals(0, again.expectedRecordBytes(), "nothing learnt before a hit");

        long bytesBefore = device.stats().readBytes();
        assertCompressibleHit(again, 23, 0);
        long firstRead = device.stats().readBytes() - bytesBefore;
        assertTrue(firstRead >= CHUNK, "the first hit reads the longest record a chunk can take: " + firstRead);
        assertTrue(again.expectedRecordBytes() > RecordFormat.HEADER_BYTES
                && again.expectedRecordBytes() < CHUNK / 2, "learnt from it: " + again.expectedRecordBytes());
        for (int i = 1; i < 20; i++) {
            long before = device.stats().readBytes();
            assertCompressibleHit(again, 23, (long) i * CHUNK);
            long read = device.stats().readBytes() - before;
            assertTrue(read <= 3 * BlockDevice.BLOCK_SIZE, "hit " + i + " read " + read + " bytes, the blocks its record spans");
        }
        assertEquals(0, cache.stats().engine().compression().secondReads());

        long opsBefore = device.stats().readOps();
        assertHit(again, 23, 20L * CHUNK);
        assertEquals(2, device.stats().readOps() - opsBefore, "the record longer than expected is read again whole");
        assertEquals(1, cache.stats().engine().compression().secondReads());
        assertTrue(again.expectedRecordBytes() > CHUNK, "and the file's expectation rises to it");
        assertEquals(0, cache.stats().engine().damagedRecords() + cache.stats().engine().refusedRecords());
    }

    @Test
    void aCompressedHitBringsItsFilesNextChunkAlongDecompressedWithOneRead() throws Exception {
        open(c -> { });
        CachedFile file = sstable("pair-Data.db");
        file.storeCompressed(true);
        putCompressible(file, 24, 0, 6);
        BlockDevice device = reopenOnFlash();
        CachedFile again = sstable("pair-Data.db");
        again.storeCompressed(true);
        assertCompressibleHit(again, 24, 0); // learns the records' length
        for (int i = 1; i + 1 < 6; i++) {
            long position = (long) i * CHUNK;
            long reads = device.stats().readOps();
            CachedChunk hit = cache.get(again, position, CHUNK, true);
            assertNotNull(hit);
            assertArrayEquals(ChunkContent.compressible(24, position, CHUNK, COMPRESSIBLE_RANDOM), ChunkContent.read(hit));
            FollowingChunk follower = hit.takeFollower();
            assertNotNull(follower, "chunk " + i + "'s next record lies right after it");
            hit.release();
            CachedChunk next = cache.claim(again, follower);
            assertNotNull(next);
            assertArrayEquals(ChunkContent.compressible(24, position + CHUNK, CHUNK, COMPRESSIBLE_RANDOM),
                    ChunkContent.read(next), "the follower decompressed");
            next.release();
            assertEquals(reads + 1, device.stats().readOps(), "one I/O for both");
        }
        assertEquals(0, cache.engine().reader().outstandingBuffers());
        assertEquals(4, cache.stats().followersServed());
    }

    @Test
    void aRecordLongerThanExpectedButInsideTheBlocksReadIsNotReadAgain() throws Exception {
        open(c -> { });
        CachedFile file = sstable("uneven-Data.db");
        file.storeCompressed(true);
        // Chunk 0's record (about 4,370 bytes) starts the segment, chunk 1's (about 6,070) follows it at
        // about 4,416.
        cache.put(file, 0, ByteBuffer.wrap(ChunkContent.compressible(25, 0, CHUNK, 4300)), System.nanoTime());
        cache.put(file, CHUNK, ByteBuffer.wrap(ChunkContent.compressible(25, CHUNK, CHUNK, 6000)), System.nanoTime());
        awaitWriter();
        BlockDevice device = reopenOnFlash();
        CachedFile again = sstable("uneven-Data.db");
        again.storeCompressed(true);
        CachedChunk first = cache.get(again, 0, CHUNK, false); // learns chunk 0's record length
        assertArrayEquals(ChunkContent.compressible(25, 0, CHUNK, 4300), ChunkContent.read(first));
        first.release();
        assertTrue(again.expectedRecordBytes() > 4300 && again.expectedRecordBytes() < 4500,
                "learnt " + again.expectedRecordBytes());

        long reads = device.stats().readOps();
        CachedChunk second = cache.get(again, CHUNK, CHUNK, false);
        assertArrayEquals(ChunkContent.compressible(25, CHUNK, CHUNK, 6000), ChunkContent.read(second));
        second.release();
        // It reads the expected length from about 4,416 (to about 8,800: blocks 1 and 2, to 12,288): its
        // record ends at about 10,500, past the bytes expected but inside the blocks read, so one read.
        assertEquals(reads + 1, device.stats().readOps(), "one read: the record lay in the blocks read");
        assertEquals(0, cache.stats().engine().compression().secondReads());
        assertTrue(again.expectedRecordBytes() > 6000, "and the expectation rises to it");
    }

    @Test
    void onlyChunksStoredCompressedAreCountedSoNotThoseTheWriterCouldNotStore() throws Exception {
        FaultyDevice[] faulty = new FaultyDevice[1];
        open(c -> { }, device -> faulty[0] = new FaultyDevice(device));
        CachedFile live = sstable("live-Data.db");
        CachedFile dying = sstable("dying-Data.db");
        live.storeCompressed(true);
        dying.storeCompressed(true);
        putCompressible(live, 26, 0, 2);
        CountDownLatch release = holdWriterInACheckpoint(faulty[0]);
        try {
            // Offered while the writer is held, and its file dead before the writer gets to it.
            cache.put(dying, 0, ByteBuffer.wrap(ChunkContent.compressible(27, 0, CHUNK, COMPRESSIBLE_RANDOM)),
                    System.nanoTime());
            cache.invalidateFile(dying);
        } finally {
            faulty[0].delay(FaultyDevice.Op.WRITE, null);
            release.countDown();
        }
        awaitWriter();
        EngineStats.Compression compression = cache.stats().engine().compression();
        assertEquals(2, compression.compressedChunks(), "the dead file's chunk was not stored: " + compression);
        assertEquals(0, compression.notWorthCompressing());
        assertEquals(2L * CHUNK, compression.chunkBytes());
    }
}

package io.flashchunk.cache.engine;

import static io.flashchunk.cache.engine.EngineFixture.CHUNK;
import static io.flashchunk.cache.engine.EngineFixture.chunk;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static io.flashchunk.cache.engine.EngineFixture.readAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.checkpoint.CheckpointSchedule;
import io.flashchunk.cache.checkpoint.Checkpointer;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.files.NamedFiles;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.read.FlashReadGate;
import io.flashchunk.cache.read.FlashReadPolicy;
import io.flashchunk.cache.space.HotChunkMoves;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.FaultyDevice;
import io.flashchunk.testing.ManualClock;
import io.flashchunk.testing.MemoryDevice;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The engine whole, over in-memory devices: offers, reads, automatic checkpoints, restarts. */
class CacheEngineTest {
    private static final int SEGMENT = 256 << 10;
    private static final NamedFiles NO_FILES = EngineFixture.NO_FILES;

    private static final long INTERVAL_MILLIS = 60_000;

    /**
     * In a full cache a doomed batch waits for a checkpoint; that checkpoint names everything
     * written before it, so the next one by count (every 4 segments here) is counted from it: one
     * checkpoint a batch, not one of each kind (which wrote twice the checkpoints' bytes).
     */
    @Test
    void aCheckpointThatFreesReclaimedSegmentsRestartsTheCountOfSegmentsWritten() throws Exception {
        MemoryDevice a = device("a", 20); // about 70 segments of 256 KiB: a batch of 4, as many as the count
        CacheEngine engine = open(a);
        int n = 24_000; // many times what flash holds
        for (int i = 0; i < n; i++) {
            engine.read(key(i), CHUNK, ByteBuffer.allocate(CHUNK)); // counted for admission
            engine.offer(key(i), chunk(key(i)));
            if (i % 100 == 0) {
                assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
            }
        }
        assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
        int sealed = engine.segmentWriter().sealed();
        long reclaimed = engine.segmentWriter().reclaimed();
        assertTrue(reclaimed >= 40, reclaimed + " reclaimed: ten batches or more");
        // One every 4 segments sealed, whatever made it: while flash fills by count, once it is full
        // because a batch waits (each then names the 4 sealed since the last one).
        assertTrue(engine.checkpoints() <= sealed / 4 + 2, engine.checkpoints() + " checkpoints for "
                + sealed + " segments sealed and " + reclaimed + " reclaimed");
        assertEquals(0, engine.failedCheckpoints());
        engine.close();
    }

    /** The statistics count the checkpoints that were deltas and every durable checkpoint's bytes. */
    @Test
    void theStatisticsCountDeltaCheckpointsAndTheBytesCheckpointsWrote() throws Exception {
        MemoryDevice a = device("a", 20);
        CacheEngine engine = open(a);
        for (int i = 0; i < 100; i++) {
            engine.offer(key(i), chunk(key(i)));
        }
        assertTrue(engine.checkpoint(10, TimeUnit.SECONDS, true));
        long full = engine.lastCheckpoint().bytes();
        assertEquals(0, engine.lastCheckpoint().deltaSpaces());
        for (int i = 100; i < 200; i++) {
            engine.offer(key(i), chunk(key(i)));
        }
        assertTrue(engine.checkpoint(10, TimeUnit.SECONDS, false));
        Checkpointer.Result delta = engine.lastCheckpoint();
        assertEquals(1, delta.deltaSpaces());
        // The writer may checkpoint of its own accord too (by segments written) between these two.
        EngineStats stats = engine.stats();
        assertTrue(stats.deltaCheckpoints() >= 1 && stats.deltaCheckpoints() < stats.checkpoints(), stats.toString());
        assertTrue(stats.checkpointBytesWritten() >= full + delta.bytes(), stats.toString());
        engine.close();
    }

    /**
     * Past the reclaim order's room (a batch short of every segment), each segment written makes the
     * order give one up by its own choice, and the writer dooms it at once, while segments are still
     * free: it serves its chunks until a checkpoint has released it and the writer needs it. Without
     * that, segments were doomed only when none was left, a batch at a time.
     */
    @Test
    void segmentsAreDoomedOneAtATimeAsTheOrderGivesThemUpAndServeUntilReused() throws Exception {
        MemoryDevice a = device("a", 20); // about 70 segments of 256 KiB: a batch of 4
        CacheEngine engine = open(a);
        SegmentTable table = engine.table();
        SegmentLayout layout = engine.start().layouts().get(0).segmentLayout();
        boolean doomedWhileFree = false;
        int servedFromDoomed = 0;
        int mostDoomed = 0;
        for (int i = 0; i < 12_000; i++) {
            engine.read(key(i), CHUNK, ByteBuffer.allocate(CHUNK)); // counted for admission
            engine.offer(key(i), chunk(key(i)));
            if (i % 50 != 0) {
                continue;
            }
            assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
            int doomed = table.count(0, SegmentState.DOOMED);
            mostDoomed = Math.max(mostDoomed, doomed);
            doomedWhileFree |= doomed > 0 && table.freeSegments(0) > 0;
            for (int k = i; k >= 0 && doomed > 0 && servedFromDoomed < 20; k -= 7) {
                long address = engine.index().find(key(k));
                if (address != RecordAddress.NONE
                        && table.state(table.segment(0, layout.index(address))) == SegmentState.DOOMED) {
                    ByteBuffer into = ByteBuffer.allocate(CHUNK);
                    int length = engine.read(key(k), CHUNK, into);
                    // The writer may reclaim it meanwhile: a miss then, never other bytes.
                    if (length != -1) {
                        assertEquals(chunk(key(k)), into.flip(), "chunk " + k + " of a doomed segment");
                        servedFromDoomed++;
                    }
                }
            }
        }
        assertTrue(doomedWhileFree, "a segment was doomed as the order gave it up, before none was free");
        assertTrue(servedFromDoomed >= 20, servedFromDoomed + " chunks served from doomed segments");
        assertTrue(engine.segmentWriter().reclaimed() >= 20, engine.segmentWriter().reclaimed() + " reclaimed");
        // Doomed since the last checkpoint (one every 4 segments) and released, not yet reused: a few batches.
        assertTrue(mostDoomed <= 12, "at most " + mostDoomed + " doomed at once");
        assertEquals(0, engine.failedCheckpoints());
        engine.close();
    }

    private static CacheEngine open(MemoryDevice... devices) throws Exception {
        return open(() -> 1_000, devices);
    }

    private static CacheEngine open(LongSupplier clockMillis, BlockDevice... devices) throws Exception {
        List<StorageDriver> drivers = java.util.Arrays.stream(devices)
                .map(d -> new StorageDriver(d, 2, TimeUnit.SECONDS.toNanos(5))).toList();
        return CacheEngine.open(drivers, new CacheEngine.Settings(SEGMENT, CHUNK, 0.1, 1, 8, 20, 8 << 20, 4,
                INTERVAL_MILLIS, false, List.of()), NO_FILES, clockMillis);
    }

    /**
     * The files a recovered checkpoint named are handed over before the writer's first step, which
     * takes chunks of files not live out of the index as it reads the recovered segments' summaries:
     * had the writer started first, it would have judged every recovered chunk dead.
     */
    @Test
    void theRecoveredFilesAreHandedOverBeforeTheWriterJudgesAChunkByThem() throws Exception {
        MemoryDevice device = device("a", 8);
        CacheEngine engine = open(device);
        for (int i = 0; i < 40; i++) {
            offer(engine, key(i), chunk(key(i)));
        }
        assertTrue(engine.checkpoint(10, TimeUnit.SECONDS, true));
        engine.close();
        List<String> calls = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.concurrent.atomic.AtomicBoolean restored = new java.util.concurrent.atomic.AtomicBoolean();
        NamedFiles files = new NamedFiles() {
            @Override
            public io.flashchunk.cache.files.FileTableCodec.Encoded table() {
                return NO_FILES.table();
            }

            @Override
            public int nextFileId() {
                return NO_FILES.nextFileId();
            }

            @Override
            public boolean isLive(int fileId) {
                calls.add("isLive");
                return restored.get();
            }

            @Override
            public void recovered(java.util.Map<Integer, io.flashchunk.cache.files.FileIdentity> named, int nextFileId) {
                calls.add("recovered");
                restored.set(true);
            }
        };
        List<StorageDriver> drivers = List.of(new StorageDriver(device, 2, TimeUnit.SECONDS.toNanos(5)));
        CacheEngine again = CacheEngine.open(drivers, new CacheEngine.Settings(SEGMENT, CHUNK, 0.1, 1, 8, 20, 8 << 20, 4,
                INTERVAL_MILLIS, false, List.of()), files, () -> 1_000);
        try {
            assertTrue(again.awaitRecoveredSampled(10, TimeUnit.SECONDS));
            assertEquals("recovered", calls.get(0));
            assertTrue(calls.contains("isLive"), "the pass judged the recovered chunks");
            assertEquals(40, again.recovered().restoredEntries());
            assertEquals(40, readAll(again, 40), "every recovered chunk is still served");
        } finally {
            again.close();
        }
    }

    /** How the chunks of the move test are stored, and how their file's are to be stored when moved. */
    enum Stored { AS_THEY_ARE, COMPRESSED, COMPRESSED_THEN_AS_THEY_ARE }

    /**
     * The paper's move of hot chunks, end to end: once the records have settled and a second has shown
     * one device's reads taking 10 ms each (on the test's clock) and the other's no time, hits read
     * from the slow one are written again on the fast one, a second's budget of them, and every chunk
     * still serves its own bytes. A chunk read compressed is moved compressed, unless its file's chunks
     * are now stored as they are.
     */
    @ParameterizedTest
    @EnumSource(Stored.class)
    void hotChunksReadFromASlowDeviceMoveToTheFastOneASecondsBudgetAtATime(Stored stored) throws Exception {
        ManualClock clock = new ManualClock();
        FaultyDevice slow = new FaultyDevice(device("slow", 8));
        int budget = 8;
        boolean compress = stored != Stored.AS_THEY_ARE;
        java.util.function.LongFunction<ByteBuffer> content = compress ? EngineFixture::compressible : EngineFixture::chunk;
        CacheEngine engine = openMoving(8, slow, budget, 4, () -> 1_000, clock,
                stored == Stored.COMPRESSED_THEN_AS_THEY_ARE ? EngineFixture.storingUncompressed(NO_FILES) : NO_FILES);
        try {
            int n = compress ? 240 : 75; // five segments' worth (15 records a segment, about 50 compressed), the last open
            for (int i = 0; i < n; i++) {
                offer(engine, key(i), content.apply(key(i)), compress);
            }
            assertTrue(engine.checkpoint(10, TimeUnit.SECONDS, true));
            List<Integer> onSlow = new java.util.ArrayList<>();
            int open = segmentOf(engine, key(n - 1));
            for (int i = 0; i < n; i++) {
                if (RecordAddress.space(engine.index().find(key(i))) == 1 && segmentOf(engine, key(i)) != open) {
                    onSlow.add(i);
                }
            }
            assertTrue(onSlow.size() >= 2 * budget, onSlow.size() + " chunks on the slow device, in sealed segments");
            // The segment open now holds the last chunk offered: sealed part full for the moves if on the slow device.
            int openOnSlow = RecordAddress.space(engine.index().find(key(n - 1)));
            for (int i = 0; i < HotChunkMoves.SETTLE_SECONDS; i++) {
                clock.advance(java.time.Duration.ofSeconds(1));
                awaitWriterRounds(engine); // a tick of the writer's: the records settle
            }
            slow.delay(FaultyDevice.Op.READ, () -> clock.advance(java.time.Duration.ofMillis(10)));
            for (int round = 0; round < 3; round++) {
                for (int i : onSlow) {
                    assertEquals(content.apply(key(i)), read(engine, i));
                }
            }
            assertEquals(0, engine.stats().hotChunkMovesTaken(), "not a source before the next tick");
            assertEquals(3L * onSlow.size() * java.time.Duration.ofMillis(10).toNanos(), engine.hitReadNanos(1),
                    "each read of the slow device took 10 ms on the clock");
            assertEquals(0, engine.hitReadNanos(0), "none of the fast one's was read");
            assertEquals(0, engine.busyMisses(1));
            clock.advance(java.time.Duration.ofSeconds(1));
            awaitWriterRounds(engine); // the writer's tick: 0.72 s of reads in 1.72 s, a source
            for (int i : onSlow) {
                assertEquals(content.apply(key(i)), read(engine, i));
            }
            awaitWriterRounds(engine);
            EngineStats stats = engine.stats();
            assertEquals(budget, stats.hotChunkMovesTaken(), "a second's budget");
            assertEquals(budget, stats.hotChunksMoved());
            for (int j = 0; j < onSlow.size(); j++) {
                int space = RecordAddress.space(engine.index().find(key(onSlow.get(j))));
                assertEquals(j < budget ? 0 : 1, space, "chunk " + onSlow.get(j));
            }
            assertEquals(openOnSlow, engine.segmentWriter().sealedForMoves(), "the segment open on the slow device, if it was");
            assertEquals(n, readAll(engine, n, content), "every chunk serves its own bytes");
            // compressed again when moved, unless its file's chunks are now stored as they are
            assertEquals(stored == Stored.COMPRESSED ? n + budget : compress ? n : 0,
                    stats.compression().compressedChunks(), stored + ": " + stats.compression());
        } finally {
            engine.close();
        }
    }

    /**
     * The fast device is full and the slow one is not. While the slow device's reads take 10 ms each
     * on the clock, its hits are taken to be moved, but none can be until the fast device has taken
     * the slow one's chunks for {@link HotChunkMoves#SETTLE_SECONDS} ticks: then a move dooms the fast
     * device's coldest segments (half a reclaim batch at most), and the writer's schedule
     * checkpoints for that doomed space once its spacing has passed, on the engine's clock. The
     * moves after it reclaim one of them and fill it, though the slow device has free segments.
     * Only the reclaimed segment's chunks become misses; every other chunk serves its own bytes.
     */
    @Test
    void hotChunksMoveIntoAFullFastDeviceInPlaceOfItsColdestSegmentsOnceTheScheduleReleasedThem() throws Exception {
        ManualClock clock = new ManualClock();
        FaultyDevice slow = new FaultyDevice(device("slow", 24));
        int budget = 8;
        CacheEngine engine = openMoving(8, slow, budget, 64, () -> TimeUnit.NANOSECONDS.toMillis(clock.getAsLong()), clock);
        try {
            SegmentTable table = engine.table();
            slow.delay(FaultyDevice.Op.READ, () -> clock.advance(java.time.Duration.ofMillis(10)));
            // The first segment opens on the slow device (the most free); then a read of it before each
            // chunk makes the slow device the more loaded at every opening: the fast one fills first.
            int n = 0;
            do {
                if (n > 0) {
                    read(engine, 0);
                }
                assertTrue(engine.offer(key(n), chunk(key(n))));
                assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
                n++;
            } while (table.freeSegments(0) > 0 || RecordAddress.space(engine.index().find(key(n - 1))) != 1);
            for (int more = n + 30; n < more; n++) { // two segments more on the slow device, at least
                assertTrue(engine.offer(key(n), chunk(key(n))));
                assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
            }
            assertEquals(1, RecordAddress.space(engine.index().find(key(0))));
            assertEquals(1, RecordAddress.space(engine.index().find(key(n - 1))), "the segment open is on the slow device");
            assertTrue(table.freeSegments(1) > 0, "the slow device has free segments");
            assertTrue(engine.checkpoint(10, TimeUnit.SECONDS, true));
            List<Integer> onSlow = new java.util.ArrayList<>();
            List<Integer> onFast = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {
                long address = engine.index().find(key(i));
                int space = RecordAddress.space(address);
                int segment = table.segment(space, engine.start().layouts().get(space).segmentLayout().index(address));
                if (table.state(segment) == SegmentState.DURABLE) {
                    (space == 1 ? onSlow : onFast).add(i);
                }
            }
            assertTrue(onSlow.size() >= 24, onSlow.size() + " chunks on the slow device, in written segments");
            // The hot chunks: a round of their reads takes 0.24 s on the clock, within a tick.
            List<Integer> hot = onSlow.subList(0, 24);
            // Ticks of the writer's: the records settle, and the fill's reads are forgotten (no source).
            for (int i = 0; i < 2 * HotChunkMoves.SETTLE_SECONDS; i++) {
                clock.advance(java.time.Duration.ofSeconds(1));
                awaitWriterRounds(engine);
            }
            awaitCheckpointsSettled(engine);

            // A tick a round, each round's hits taken while the budget lasts; a checkpoint asked for at
            // the start of each keeps the schedule's spacing from passing meanwhile.
            int rounds = 0;
            while (engine.stats().segmentsDoomedForMoves() == 0) {
                assertTrue(++rounds <= 3 * HotChunkMoves.SETTLE_SECONDS, "no room made in " + rounds + " rounds");
                assertTrue(engine.checkpoint(10, TimeUnit.SECONDS, false));
                for (int i : hot) {
                    assertEquals(chunk(key(i)), read(engine, i));
                }
                clock.advance(java.time.Duration.ofMillis(760));
                awaitWriterRounds(engine);
                assertEquals(0, engine.stats().hotChunksMoved(), "no free segment on the fast device, none released");
            }
            assertTrue(rounds > HotChunkMoves.SETTLE_SECONDS, rounds + " rounds: the fast device the target only after "
                    + HotChunkMoves.SETTLE_SECONDS + " ticks taking the slow one's chunks");
            assertTrue(engine.stats().hotChunkMovesTaken() > 0);
            long doomed = engine.stats().segmentsDoomedForMoves();
            assertEquals(doomed, table.count(0, SegmentState.DOOMED), "the fast device's segments");
            assertEquals(0, table.releasedSegments(0));

            long checkpoints = engine.checkpoints();
            clock.advance(java.time.Duration.ofMillis(CheckpointSchedule.DOOMED_SPACE_SPACING_MILLIS));
            awaitCheckpointsSettled(engine);
            awaitWriterRounds(engine);
            assertEquals(checkpoints + 1, engine.checkpoints(), "one for the doomed space, its spacing passed");
            assertEquals(doomed, table.releasedSegments(0), "released by it");
            long movedBefore = engine.stats().hotChunksMoved();
            assertEquals(0, movedBefore);
            for (int i : hot) {
                assertEquals(chunk(key(i)), read(engine, i));
            }
            awaitWriterRounds(engine);
            assertEquals(budget, engine.stats().hotChunksMoved(), "a second's budget, into the fast device");
            for (int j = 0; j < hot.size(); j++) {
                int space = RecordAddress.space(engine.index().find(key(hot.get(j))));
                assertEquals(j < budget ? 0 : 1, space, "chunk " + hot.get(j));
            }
            assertEquals(doomed - 1, table.releasedSegments(0), "one reclaimed for the moves");
            assertEquals(1, engine.segmentWriter().sealedForMoves(), "the segment open on the slow device");
            assertTrue(table.freeSegments(1) > 0, "while the slow device's free segments wait");

            slow.delay(FaultyDevice.Op.READ, () -> { }); // no more ticks of the moves while all is read
            int misses = 0;
            for (int i = 0; i < n; i++) {
                ByteBuffer into = ByteBuffer.allocate(CHUNK);
                if (engine.read(key(i), CHUNK, into) == -1) {
                    assertTrue(onFast.contains(i), "only the fast device's coldest chunks are dropped: " + i);
                    misses++;
                } else {
                    assertEquals(chunk(key(i)), into.flip(), "chunk " + i);
                }
            }
            assertTrue(misses > 0 && misses <= SEGMENT / CHUNK, misses + " misses: one segment's chunks");
        } finally {
            engine.close();
        }
    }

    /**
     * An engine over a fast device of {@code fastMegabytes} (space 0) and {@code slow} (space 1) that
     * moves {@code budget} chunks a second, its reads timed by {@code clock}.
     */
    private static CacheEngine openMoving(int fastMegabytes, FaultyDevice slow, int budget, int checkpointEverySegments,
                                          LongSupplier clockMillis, ManualClock clock) throws Exception {
        return openMoving(fastMegabytes, slow, budget, checkpointEverySegments, clockMillis, clock, NO_FILES);
    }

    private static CacheEngine openMoving(int fastMegabytes, FaultyDevice slow, int budget, int checkpointEverySegments,
                                          LongSupplier clockMillis, ManualClock clock, NamedFiles files) throws Exception {
        List<StorageDriver> drivers = List.of(
                new StorageDriver(device("fast", fastMegabytes), 2, TimeUnit.SECONDS.toNanos(5)),
                new StorageDriver(slow, 2, TimeUnit.SECONDS.toNanos(5)));
        return CacheEngine.open(drivers, new CacheEngine.Settings(SEGMENT, CHUNK, 0.1, 1, 8, 20, 8 << 20,
                        checkpointEverySegments, INTERVAL_MILLIS, false, List.of()).withHotChunkMoves((long) budget * CHUNK),
                files, clockMillis, clock, new FlashReadPolicy(false, TimeUnit.SECONDS.toNanos(5), FlashReadGate.OPEN, clock));
    }

    /** The segment that holds {@code key}'s record now. */
    private static int segmentOf(CacheEngine engine, long key) {
        long address = engine.index().find(key);
        int space = RecordAddress.space(address);
        return engine.table().segment(space, engine.start().layouts().get(space).segmentLayout().index(address));
    }

    private static ByteBuffer read(CacheEngine engine, int i) {
        ByteBuffer into = ByteBuffer.allocate(CHUNK);
        assertEquals(CHUNK, engine.read(key(i), CHUNK, into), "chunk " + i);
        return into.flip();
    }

    /** Two rounds of the writer's loop: whatever the first one decided after taking its marker is done. */
    private static void awaitWriterRounds(CacheEngine engine) throws InterruptedException {
        assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
        assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
    }

    /** Two writer rounds (the clock moved: a checkpoint by time may start), then until none is under way. */
    private static void awaitCheckpointsSettled(CacheEngine engine) throws InterruptedException {
        awaitWriterRounds(engine);
        assertTrue(engine.awaitCheckpointsSettled(10, TimeUnit.SECONDS));
    }

    private static MemoryDevice device(String name, int megabytes) {
        return MemoryDevice.blank(name, (long) megabytes * (1 << 20) / BlockDevice.BLOCK_SIZE, 8);
    }

    /**
     * No checkpoint asked for after a file died and nothing appended: the segments of only its chunks
     * (more than a reclaim batch) are freed by the one checkpoint the schedule makes for the dead space
     * once its spacing has passed, and none follows once none waits.
     */
    @Test
    void aDeadFilesSegmentsAreFreedByACheckpointForDeadSpaceOnAQuietCache() throws Exception {
        AtomicLong clock = new AtomicLong(1_000);
        MemoryDevice a = device("a", 8);
        CacheEngine engine = open(clock::get, a);
        for (int i = 0; i < 60; i++) { // file 1: about four segments of 256 KiB
            assertTrue(engine.offer(key(i), chunk(key(i))));
        }
        for (int i = 1000; i < 1010; i++) { // file 2
            assertTrue(engine.offer(key(i), chunk(key(i))));
        }
        assertTrue(engine.checkpoint(10, TimeUnit.SECONDS, false)); // a small one: the dead segments outweigh it
        awaitCheckpointsSettled(engine);
        long checkpoints = engine.checkpoints();
        int freeBefore = engine.table().freeSegments(0);
        engine.fileDied(1);
        assertTrue(engine.awaitDeadFilesSwept(10, TimeUnit.SECONDS));
        awaitCheckpointsSettled(engine);
        assertEquals(checkpoints, engine.checkpoints(), "none before the spacing has passed");
        assertEquals(freeBefore, engine.table().freeSegments(0));
        assertEquals(4, engine.stats().deadSpace().mostlyDeadSegmentsDoomed(), engine.stats().toString());

        clock.addAndGet(CheckpointSchedule.DOOMED_SPACE_SPACING_MILLIS);
        awaitCheckpointsSettled(engine);
        awaitWriterRounds(engine);
        assertEquals(checkpoints + 1, engine.checkpoints(), "one, for the dead space");
        int freed = engine.table().freeSegments(0) - freeBefore;
        assertEquals(4, freed, "its four segments, more than a batch (3 here), are free");
        for (int i = 1000; i < 1010; i++) {
            ByteBuffer into = ByteBuffer.allocate(CHUNK);
            assertEquals(CHUNK, engine.read(key(i), CHUNK, into), "file 2's chunk " + i);
            assertEquals(chunk(key(i)), into.flip());
        }
        assertEquals(0, engine.stats().deadSpace().deadRecords(), engine.stats().toString());
        clock.addAndGet(CheckpointSchedule.DOOMED_SPACE_SPACING_MILLIS);
        awaitCheckpointsSettled(engine);
        awaitWriterRounds(engine);
        assertEquals(checkpoints + 1, engine.checkpoints(), "none once no doomed dead segment waits");
        engine.close();
    }

    @Test
    void aFailedIntervalCheckpointIsTriedAgainOnlyASecondLaterOnTheEnginesClock() throws Exception {
        FaultyDevice a = new FaultyDevice(device("a", 4));
        AtomicLong clock = new AtomicLong(1_000);
        CacheEngine engine = open(clock::get, a);
        for (int i = 0; i < 10; i++) {
            assertTrue(engine.offer(key(i), chunk(key(i))));
        }
        awaitWriterRounds(engine);
        a.failing(FaultyDevice.Op.FLUSH, true);
        clock.addAndGet(INTERVAL_MILLIS);
        awaitCheckpointsSettled(engine);
        assertEquals(1, engine.failedCheckpoints(), "the interval passed; its checkpoint's flush failed");
        clock.addAndGet(999);
        awaitCheckpointsSettled(engine);
        assertEquals(1, engine.failedCheckpoints(), "not tried again within a second");
        assertEquals(0, engine.checkpoints());
        a.failing(FaultyDevice.Op.FLUSH, false);
        clock.addAndGet(1);
        awaitCheckpointsSettled(engine);
        assertEquals(1, engine.checkpoints(), "tried again a second after the failure, and durable");
        assertEquals(1, engine.failedCheckpoints());
        engine.close();
    }

    @Test
    void servesWhatItWasOfferedAndComesBackWarmAfterAClose() throws Exception {
        MemoryDevice a = device("a", 4);
        MemoryDevice b = device("b", 4);
        CacheEngine engine = open(a, b);
        assertTrue(engine.start().formatted());
        int n = 200;
        for (int i = 0; i < n; i++) {
            assertTrue(engine.offer(key(i), chunk(key(i))), "chunk " + i + ": flash has room, all are admitted");
        }
        assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
        assertEquals(n, readAll(engine, n));
        engine.close();
        assertTrue(engine.checkpoints() >= 1, "a last checkpoint at close");

        CacheEngine again = open(a, b);
        assertFalse(again.start().formatted());
        assertEquals(n, again.recovered().restoredEntries(), "every chunk, the open segment's too (sealed at close)");
        assertEquals(n, readAll(again, n));
        again.close();
    }

    @Test
    void chunksUnnamedForTheIntervalAreWrittenAndCheckpointedWithoutSealingSoThatACrashKeepsThem() throws Exception {
        MemoryDevice a = device("a", 4);
        AtomicLong clock = new AtomicLong(1_000);
        CacheEngine engine = open(clock::get, a);
        int n = 10; // a part of one segment
        for (int i = 0; i < n; i++) {
            assertTrue(engine.offer(key(i), chunk(key(i))));
        }
        awaitWriterRounds(engine);
        clock.addAndGet(INTERVAL_MILLIS - 1);
        awaitWriterRounds(engine);
        assertEquals(0, engine.checkpoints(), "not before the interval");
        assertEquals(n, engine.appendedSinceCheckpoint());
        clock.addAndGet(1);
        awaitCheckpointsSettled(engine);
        assertEquals(1, engine.checkpoints(), "the interval passed: the open segment's records written and named");
        assertEquals(0, engine.appendedSinceCheckpoint());
        assertEquals(0, engine.segmentWriter().sealed(), "the segment goes on filling");
        awaitWriterRounds(engine);
        assertEquals(1, engine.checkpoints(), "nothing new, no new checkpoint");

        MemoryDevice crashed = new MemoryDevice("a", a.image(), 8); // the device as a SIGKILL now leaves it
        engine.close();
        CacheEngine again = open(crashed);
        assertEquals(n, again.recovered().restoredEntries());
        assertEquals(n, readAll(again, n));
        again.close();
    }

    @Test
    void theIntervalCountsFromTheFirstChunkAfterACheckpointNotFromTheLastIdleMoment() throws Exception {
        FaultyDevice a = new FaultyDevice(device("a", 4));
        AtomicLong clock = new AtomicLong(1_000);
        CacheEngine engine = open(clock::get, a);
        assertTrue(engine.offer(key(0), chunk(key(0))));
        awaitWriterRounds(engine);
        // Hold the interval's sealing write (the writer's next round, once the clock moves), and queue
        // more chunks behind it meanwhile.
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        a.delay(FaultyDevice.Op.WRITE, () -> {
            writing.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        clock.addAndGet(INTERVAL_MILLIS);
        assertTrue(writing.await(10, TimeUnit.SECONDS), "the interval passed: the open segment is being sealed");
        for (int i = 1; i < 6; i++) {
            assertTrue(engine.offer(key(i), chunk(key(i))));
        }
        a.delay(FaultyDevice.Op.WRITE, null);
        release.countDown();
        awaitCheckpointsSettled(engine);
        assertEquals(1, engine.checkpoints(), "the chunks after the checkpoint are younger than the interval");
        assertEquals(5, engine.appendedSinceCheckpoint());
        assertEquals(6, readAll(engine, 6));
        engine.close();
    }

    /** Checkpoints larger than a segment: 64 KiB segments of 4 KiB chunks, and no checkpoint by count in the way. */
    @Test
    void aCheckpointByTimeLargerThanASegmentWaitsUntilTheChunksItWouldNameOutweighWhatTheLastOneWrote()
            throws Exception {
        int segment = 64 << 10;
        int chunk = 4096;
        AtomicLong clock = new AtomicLong(1_000);
        StorageDriver driver = new StorageDriver(device("a", 48), 2, TimeUnit.SECONDS.toNanos(5));
        CacheEngine engine = CacheEngine.open(List.of(driver),
                new CacheEngine.Settings(segment, chunk, 0.1, 1, 8, 20, 8 << 20, 100_000, INTERVAL_MILLIS, false,
                        List.of()), NO_FILES, clock::get);
        int filled = 6_000;
        for (int i = 0; i < filled; i++) {
            offer(engine, key(i), small(i, chunk));
        }
        assertTrue(engine.checkpoint(10, TimeUnit.SECONDS), "asked for, whatever its size");
        assertEquals(filled, engine.lastCheckpoint().entries(), "every chunk named, none refused");
        long before = engine.checkpoints();
        long bytes = engine.lastCheckpoint().bytes();
        assertTrue(bytes > segment, bytes + " bytes: larger than a segment");
        int enough = Math.toIntExact((CheckpointSchedule.INTERVAL_PAYBACK * bytes + chunk - 1) / chunk);
        for (int i = filled; i < filled + enough - 1; i++) {
            offer(engine, key(i), small(i, chunk));
        }
        awaitWriterRounds(engine);
        clock.addAndGet(10 * INTERVAL_MILLIS);
        awaitWriterRounds(engine);
        assertEquals(before, engine.checkpoints(), (enough - 1) + " chunks of " + chunk + " bytes are fewer bytes than "
                + CheckpointSchedule.INTERVAL_PAYBACK + " times " + bytes);
        assertEquals(enough - 1, engine.appendedSinceCheckpoint());
        assertTrue(engine.offer(key(filled + enough), small(filled + enough, chunk)));
        awaitWriterRounds(engine);
        assertEquals(before + 1, engine.checkpoints(), "the interval long passed, and now the bytes outweigh it");
        assertEquals(0, engine.appendedSinceCheckpoint());
        // A delta after the full one: the segments written since, a few bytes each; the next by time is weighed against it.
        assertEquals(1, engine.lastCheckpoint().deltaSpaces());
        assertTrue(engine.lastCheckpoint().changedSegments() > 0 && engine.lastCheckpoint().bytes() < segment,
                engine.lastCheckpoint().toString());
        engine.close();
        CacheEngine again = CacheEngine.open(List.of(driver),
                new CacheEngine.Settings(segment, chunk, 0.1, 1, 8, 20, 8 << 20, 100_000, INTERVAL_MILLIS, false,
                        List.of()), NO_FILES, clock::get);
        try {
            assertEquals(filled + enough, again.recovered().restoredEntries(), "every chunk back, none refused");
            for (int i = 0; i <= filled + enough; i++) {
                if (i == filled + enough - 1) {
                    continue; // never offered
                }
                ByteBuffer into = ByteBuffer.allocate(chunk);
                assertTrue(again.read(key(i), chunk, into) != -1, "chunk " + i);
                assertEquals(small(i, chunk), into.flip(), "chunk " + i);
            }
        } finally {
            again.close();
        }
    }

    @Test
    void aCheckpointByTimeNoLargerThanASegmentIsWrittenEachIntervalWhateverWasAppended() throws Exception {
        MemoryDevice a = device("a", 4);
        AtomicLong clock = new AtomicLong(1_000);
        CacheEngine engine = open(clock::get, a);
        for (int i = 0; i < 100; i++) {
            assertTrue(engine.offer(key(i), chunk(key(i))));
        }
        assertTrue(engine.checkpoint(10, TimeUnit.SECONDS));
        long before = engine.checkpoints();
        for (int round = 1; round <= 3; round++) {
            assertTrue(engine.offer(key(100 + round), chunk(key(100 + round))));
            awaitWriterRounds(engine);
            clock.addAndGet(INTERVAL_MILLIS);
            awaitWriterRounds(engine);
            assertEquals(before + round, engine.checkpoints(), "one chunk, an interval: a checkpoint");
            assertTrue(engine.lastCheckpoint().bytes() <= SEGMENT);
            assertEquals(1, engine.lastCheckpoint().deltaSpaces(), "a delta after the full one asked for");
        }
        engine.close();
    }

    /** A chunk of {@code bytes} of key {@code i}'s own content. */
    /** Offers a chunk; when the queue is full (a loaded machine's writer behind), once more after it drained. */
    private static void offer(CacheEngine engine, long key, ByteBuffer chunk) throws InterruptedException {
        offer(engine, key, chunk, false);
    }

    private static void offer(CacheEngine engine, long key, ByteBuffer chunk, boolean compress) throws InterruptedException {
        if (!engine.offer(key, chunk, compress)) {
            assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
            assertTrue(engine.offer(key, chunk, compress), "offered again once the queue drained");
        }
    }

    private static ByteBuffer small(int i, int bytes) {
        return chunk(key(i)).limit(bytes).slice();
    }

    @Test
    void keepsCachingPastItsCapacityCheckpointingAsItMust() throws Exception {
        MemoryDevice a = device("a", 3);
        CacheEngine engine = open(a);
        int n = 2_000; // about ten times what 3 MiB holds
        int offered = 0;
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < n; i++) {
                engine.read(key(i), CHUNK, ByteBuffer.allocate(CHUNK)); // counted for admission
                offered += engine.offer(key(i), chunk(key(i))) ? 1 : 0;
                if (i % 100 == 0) {
                    assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS)); // the test offers no faster than it writes
                }
            }
        }
        assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
        assertTrue(engine.segmentWriter().reclaimed() > 10, engine.segmentWriter().reclaimed() + " reclaimed");
        assertTrue(engine.checkpoints() > 10 && engine.failedCheckpoints() == 0, engine.checkpoints() + " checkpoints");
        assertTrue(engine.notAdmitted() > 0, "once flash is full, admission refuses chunks read no more than a victim");
        int hits = readAll(engine, n);
        assertTrue(hits > 50, hits + " hits of " + n + " after " + offered + " offers");
        assertEquals(0, engine.refusedRecords());
        engine.close();
        CacheEngine again = open(a);
        assertTrue(again.recovered().restoredEntries() > 50, again.recovered().toString());
        assertEquals(again.recovered().restoredEntries(), readAll(again, n));
        again.close();
    }
}

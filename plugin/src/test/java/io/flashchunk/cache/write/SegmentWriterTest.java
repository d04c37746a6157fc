package io.flashchunk.cache.write;

import static io.flashchunk.cache.engine.EngineFixture.CHUNK;
import static io.flashchunk.cache.engine.EngineFixture.PER_SEGMENT;
import static io.flashchunk.cache.engine.EngineFixture.SEGMENT_BYTES;
import static io.flashchunk.cache.engine.EngineFixture.WINDOW_BYTES;
import static io.flashchunk.cache.engine.EngineFixture.chunk;
import static io.flashchunk.cache.engine.EngineFixture.device;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.format.ChunkForm;
import io.flashchunk.cache.engine.EngineFixture;
import io.flashchunk.cache.engine.EngineFixture.Order;
import io.flashchunk.cache.files.ChunkKeys;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.read.SegmentReader;
import io.flashchunk.cache.reclaim.FifoReclaimOrder;
import io.flashchunk.cache.space.HotChunkMoves;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.cache.space.SpaceReads;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.FaultyDevice;
import io.flashchunk.testing.MemoryDevice;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;


/** The segment writer and reader together over in-memory devices, against chunks whose bytes are a function of their key. */
class SegmentWriterTest {

    @Test
    void servesChunksFromMemoryThenFlashAndForgetsTheReclaimedOnes() throws Exception {
        MemoryDevice a = device("a", 4);
        MemoryDevice b = device("b", 4);
        EngineFixture engine = new EngineFixture(a, b);
        int perSegment = PER_SEGMENT;
        assertTrue(engine.writer.append(key(0), chunk(key(0))));
        assertEquals(chunk(key(0)), engine.read(key(0)), "served from the open segment");
        int n = 20 * perSegment; // flash holds 8 segments: most are reclaimed
        for (int i = 1; i < n; i++) {
            assertTrue(engine.writer.append(key(i), chunk(key(i))));
        }
        engine.segmentWriter.flush();
        int hits = 0;
        for (int i = 0; i < n; i++) {
            ByteBuffer read = engine.read(key(i));
            if (read != null) {
                assertEquals(chunk(key(i)), read, "chunk " + i);
                hits++;
            }
        }
        assertTrue(engine.segmentWriter.reclaimed() >= 11, engine.segmentWriter.reclaimed() + " reclaimed");
        assertTrue(hits >= 6 * perSegment && hits <= 8 * perSegment, hits + " hits, " + perSegment + " a segment");
        assertEquals(hits, engine.index.entries(), "the reclaimed segments' chunks left the index");
        for (int i = n - perSegment; i < n; i++) {
            assertEquals(chunk(key(i)), engine.read(key(i)), "the newest chunks are all there: " + i);
        }
        assertNull(engine.read(key(0)), "the first chunks were reclaimed");
        assertEquals(0, a.overlappingWrites() + b.overlappingWrites(), "each window's write waited for the one before");
    }

    @Test
    void eachSegmentOpensInTheSpaceFlashReadsLoadedLeastSinceTheLastOneOpened() throws Exception {
        SpaceReads load = new SpaceReads(2);
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, new WriterPolicy(null, 0, 1, load, null), device("a", 8), device("b", 8));
        // No reads yet: segments alternate (space 0, then 1), and both are written.
        for (int i = 0; i < 2 * PER_SEGMENT; i++) {
            assertTrue(engine.writer.append(key(i), chunk(key(i))));
        }
        engine.segmentWriter.flush();
        assertEquals(0, spaceOf(engine, 0));
        assertEquals(1, spaceOf(engine, PER_SEGMENT));
        // Space 0 is read: the next segment opens in space 1, though space 0 would be next in turn.
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < PER_SEGMENT; i++) {
                assertEquals(chunk(key(i)), engine.read(key(i)));
            }
        }
        assertEquals(3L * PER_SEGMENT, load.count(0));
        int next = 2 * PER_SEGMENT;
        assertTrue(engine.writer.append(key(next), chunk(key(next))));
        assertEquals(1, spaceOf(engine, next), "opened away from the loaded space");
        // Now space 1 is read more since that segment opened: the one after opens in space 0.
        for (int i = PER_SEGMENT; i < 2 * PER_SEGMENT; i++) {
            assertEquals(chunk(key(i)), engine.read(key(i)));
        }
        for (int i = next + 1; i <= next + PER_SEGMENT; i++) {
            assertTrue(engine.writer.append(key(i), chunk(key(i))));
        }
        assertEquals(0, spaceOf(engine, next + PER_SEGMENT), "opened away from the space read since");
    }


    /** Two spaces whose hot chunks move, with space 0's reads taking ten times space 1's over the last second. */
    private static EngineFixture movingOffSpaceZero(SpaceReads load, HotChunkMoves moves, int chunks, int segmentsOfA,
                                                    int segmentsOfB) throws Exception {
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE,
                new WriterPolicy(null, 0, 1, load, null, moves), device("a", segmentsOfA), device("b", segmentsOfB));
        for (int i = 0; i < chunks; i++) {
            assertTrue(engine.writer.append(key(i), chunk(key(i))));
        }
        load.read(0, TimeUnit.MILLISECONDS.toNanos(500));
        load.read(1, TimeUnit.MILLISECONDS.toNanos(50));
        moves.tick(TimeUnit.SECONDS.toNanos(1), engine.segmentWriter.nextRecordSequence());
        assertTrue(moves.source(0));
        return engine;
    }

    private static boolean move(EngineFixture engine, int i) {
        return move(engine, i, engine.index.find(key(i)));
    }

    /** Moves chunk {@code i} as a hit that read it at {@code from}, in the use of that segment now. */
    private static boolean move(EngineFixture engine, int i, long from) {
        int space = RecordAddress.space(from);
        long sequence = engine.table.sequence(engine.table.segment(space, engine.spaces.layout(space).index(from)));
        return engine.writer.move(key(i), chunk(key(i)), ChunkForm.RAW, from, sequence);
    }

    @Test
    void aHotChunkMovesIntoTheLessLoadedSpaceOnlyWhileTheIndexStillPointsWhereItWasRead() throws Exception {
        SpaceReads load = new SpaceReads(2);
        HotChunkMoves moves = new HotChunkMoves(load, 1 << 20, 0, space -> true);
        EngineFixture engine = movingOffSpaceZero(load, moves, 2 * PER_SEGMENT, 8, 8);
        engine.segmentWriter.flush();
        assertEquals(0, spaceOf(engine, 0));
        assertEquals(1, spaceOf(engine, PER_SEGMENT));
        long from = engine.index.find(key(0));
        long deadBefore = engine.segmentWriter.entries().deadRecords();
        assertTrue(move(engine, 0, from));
        assertEquals(1, spaceOf(engine, 0), "written again in space 1");
        assertEquals(chunk(key(0)), engine.read(key(0)));
        assertEquals(deadBefore + 1, engine.segmentWriter.entries().deadRecords(), "the record it was read from is dead");
        assertFalse(move(engine, 0, from), "moved since that read");
        long invalidatedFrom = engine.index.find(key(3));
        engine.writer.invalidate(key(3));
        assertFalse(move(engine, 3, invalidatedFrom), "invalidated since its read");
        assertNull(engine.read(key(3)), "not brought back");
        long at = engine.index.find(key(4));
        int segment = engine.table.segment(0, engine.spaces.layout(0).index(at));
        long read = engine.table.sequence(segment);
        assertFalse(engine.writer.move(key(4), chunk(key(4)), ChunkForm.RAW, at, read - 1),
                "read in another use of its segment: the same address, another record");
        assertEquals(0, spaceOf(engine, 4));
        long lessLoaded = engine.index.find(key(PER_SEGMENT));
        assertFalse(move(engine, PER_SEGMENT, lessLoaded), "read from the less loaded space: stays");
        assertEquals(1, spaceOf(engine, PER_SEGMENT));
        assertEquals(0, engine.segmentWriter.sealedForMoves());
    }

    @Test
    void aSegmentOpenInTheLoadedSpaceIsSealedPartFullForAMoveAndTheNextOpensElsewhere() throws Exception {
        SpaceReads load = new SpaceReads(2);
        HotChunkMoves moves = new HotChunkMoves(load, 1 << 20, 0, space -> true);
        // Segments in turn: space 0, space 1, then space 0 open with three chunks.
        EngineFixture engine = movingOffSpaceZero(load, moves, 2 * PER_SEGMENT + 3, 8, 8);
        assertEquals(0, spaceOf(engine, 2 * PER_SEGMENT));
        assertTrue(move(engine, 1));
        assertEquals(1, engine.segmentWriter.sealedForMoves());
        assertEquals(1, spaceOf(engine, 1), "moved into a segment opened in space 1");
        assertTrue(move(engine, 2));
        assertEquals(1, engine.segmentWriter.sealedForMoves(), "the segment open in space 1 takes moves");
        engine.segmentWriter.flush();
        for (int i = 0; i < 2 * PER_SEGMENT + 3; i++) {
            assertEquals(chunk(key(i)), engine.read(key(i)), "chunk " + i);
        }
        // Without moves the same open segment takes appends on.
        EngineFixture still = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE,
                new WriterPolicy(null, 0, 1, new SpaceReads(2), null), device("a", 8), device("b", 8));
        for (int i = 0; i < 2 * PER_SEGMENT + 3; i++) {
            assertTrue(still.writer.append(key(i), chunk(key(i))));
        }
        assertFalse(move(still, 1), "no moves asked for");
        assertEquals(0, still.segmentWriter.sealedForMoves());
    }

    /**
     * Space 1 has no free segment left: sealing the segment open in the loaded space would only open
     * another there, so it stays open and the move waits (for the checkpoint that releases the
     * segment doomed to make room, the next test).
     */
    @Test
    void noSegmentIsSealedForAMoveWhenNoLessLoadedSpaceHasAFreeOne() throws Exception {
        SpaceReads load = new SpaceReads(2);
        HotChunkMoves moves = new HotChunkMoves(load, 1 << 20, 0, space -> true);
        // Space 0 holds two segments, space 1 one: segments 0 (space 0), 1 (space 1, in turn when both have
        // one free), then 2 (space 0) open with three chunks, and none free.
        EngineFixture engine = movingOffSpaceZero(load, moves, 2 * PER_SEGMENT + 3, 2, 1);
        assertEquals(0, engine.table.freeSegments(1));
        assertEquals(1, spaceOf(engine, PER_SEGMENT));
        assertEquals(0, spaceOf(engine, 2 * PER_SEGMENT));
        assertFalse(move(engine, 1), "nowhere less loaded to write it");
        assertEquals(0, engine.segmentWriter.sealedForMoves());
        assertEquals(0, spaceOf(engine, 1));
        assertTrue(engine.writer.append(key(2 * PER_SEGMENT + 3), chunk(key(2 * PER_SEGMENT + 3))));
        assertEquals(0, spaceOf(engine, 2 * PER_SEGMENT + 3), "the open segment took the next chunk");
    }

    /**
     * The paper's exchange: the less loaded space is full, so its coldest segment (by the order: the
     * one not read) is doomed for the moves, no more than the batch; once a checkpoint released it,
     * the segment open in the loaded space is sealed part full, the doomed one is reclaimed (its
     * chunks are misses from then on) and opened for the move, though the loaded space has free
     * segments. The hot segment of the full space and every other chunk stay.
     */
    @Test
    void aFullLessLoadedSpaceGivesItsColdestSegmentUpForTheMovesOnceACheckpointReleasedIt() throws Exception {
        SpaceReads load = new SpaceReads(2);
        HotChunkMoves moves = new HotChunkMoves(load, 1 << 20, 0, space -> true);
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE,
                new WriterPolicy(null, 0, 1, load, null, moves), device("a", 8), device("b", 2));
        // Space 0 read before each segment opens: space 1's two segments first, then space 0's, the
        // fifth open with three chunks.
        int n = 4 * PER_SEGMENT + 3;
        for (int i = 0; i < n; i++) {
            if (i % PER_SEGMENT == 0) {
                load.read(0, TimeUnit.MILLISECONDS.toNanos(1));
            }
            assertTrue(engine.writer.append(key(i), chunk(key(i))));
        }
        assertEquals(0, engine.table.freeSegments(1));
        assertEquals(1, spaceOf(engine, 0));
        assertEquals(1, spaceOf(engine, PER_SEGMENT));
        assertEquals(0, spaceOf(engine, 2 * PER_SEGMENT));
        assertEquals(0, spaceOf(engine, 4 * PER_SEGMENT));
        // Space 0's reads take ten times space 1's for as many ticks as the target needs to last.
        for (int second = 1; second <= HotChunkMoves.SETTLE_SECONDS; second++) {
            assertEquals(-1, moves.target(), "no target until the imbalance has lasted");
            load.read(0, TimeUnit.MILLISECONDS.toNanos(500));
            load.read(1, TimeUnit.MILLISECONDS.toNanos(50));
            moves.tick(TimeUnit.SECONDS.toNanos(second), engine.segmentWriter.nextRecordSequence());
            assertTrue(moves.source(0));
        }
        assertEquals(1, moves.target());
        // The older of space 1's segments is the hot one: the coldest is not the oldest (a FIFO would be wrong).
        int hot = engine.table.segment(1, engine.spaces.layout(1).index(engine.index.find(key(0))));
        int cold = engine.table.segment(1, engine.spaces.layout(1).index(engine.index.find(key(PER_SEGMENT))));
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < PER_SEGMENT; i++) {
                assertEquals(chunk(key(i)), engine.read(key(i)));
            }
        }
        assertEquals(cold, engine.order.coldest(segment -> engine.table.space(segment) == 1, 1)[0]);
        int moved = 2 * PER_SEGMENT + 1;

        assertFalse(move(engine, moved), "no room until a checkpoint released the doomed segment");
        assertEquals(SegmentState.DOOMED, engine.table.state(cold), "the full space's coldest segment");
        assertEquals(SegmentState.DURABLE, engine.table.state(hot));
        assertEquals(1, engine.segmentWriter.doomedForMoves(), "no more than the reclaim batch (of one) waits");
        assertEquals(0, engine.segmentWriter.sealedForMoves());
        assertEquals(chunk(key(PER_SEGMENT)), engine.read(key(PER_SEGMENT)), "a doomed segment still serves");
        assertEquals(0, engine.table.releasedSegments(1));

        assertTrue(engine.writer.checkpoint("the schedule's"));
        assertEquals(1, engine.table.releasedSegments(1));
        assertTrue(move(engine, moved));
        assertEquals(1, engine.segmentWriter.sealedForMoves(), "the segment open in space 0, part full");
        assertEquals(1, spaceOf(engine, moved), "moved into the reclaimed segment");
        assertEquals(cold, engine.table.segment(1, engine.spaces.layout(1).index(engine.index.find(key(moved)))));
        assertEquals(1, engine.segmentWriter.doomedForMoves(), "room is made once a tick of the moves");
        assertTrue(engine.table.freeSegments(0) > 0, "though space 0 had free segments");
        engine.segmentWriter.flush();
        for (int i = 0; i < n; i++) {
            ByteBuffer read = engine.read(key(i));
            if (i >= PER_SEGMENT && i < 2 * PER_SEGMENT) {
                assertNull(read, "the cold segment's chunk " + i + " is a miss");
            } else {
                assertEquals(chunk(key(i)), read, "chunk " + i);
            }
        }
    }

    /**
     * A space hot chunks are moved off opens a segment only when no other can, even when its reads
     * since the last segment opened took less time (what it takes in, the moves would take out).
     */
    @Test
    void aSegmentOpensOutsideTheSpaceChunksAreMovedOffThoughItWasReadLessSinceTheLastOpened() throws Exception {
        SpaceReads load = new SpaceReads(2);
        HotChunkMoves moves = new HotChunkMoves(load, 1 << 20, 0, space -> true);
        EngineFixture engine = movingOffSpaceZero(load, moves, 2 * PER_SEGMENT, 8, 8);
        engine.segmentWriter.flush();
        // Since the last segment opened, space 1's reads took longer than space 0's: without the moves,
        // the next segment would open in space 0 (the first test of this class shows the rule).
        load.read(1, TimeUnit.MILLISECONDS.toNanos(900));
        int next = 2 * PER_SEGMENT;
        assertTrue(engine.writer.append(key(next), chunk(key(next))));
        assertEquals(1, spaceOf(engine, next), "opened outside the space chunks are moved off");
    }

    /** Live keys for a policy: all, until {@link #kill} marks the file dead (its chunks are appended while it lives). */
    private static final class DyingFile implements java.util.function.LongPredicate {
        private final int file;
        private volatile boolean dead;

        DyingFile(int file) {
            this.file = file;
        }

        void kill() {
            dead = true;
        }

        @Override
        public boolean test(long key) {
            return !dead || ChunkKeys.fileId(key) != file;
        }
    }

    @Test
    void segmentsHoldingOnlyDeadFilesChunksAreReclaimedBeforeTheOrdersTurn() throws Exception {
        int deadFile = ChunkKeys.fileId(key(0));
        DyingFile dying = new DyingFile(deadFile);
        // Oldest first, so the order alone would reclaim the live file's first segment.
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST,
                new WriterPolicy(null, 0, 1, null, dying), device("a", 8));
        for (int i = 0; i < 6 * PER_SEGMENT; i++) {
            assertTrue(engine.writer.append(key(1000 + i), chunk(key(1000 + i)))); // six segments of a live file
        }
        for (int i = 0; i < PER_SEGMENT; i++) {
            assertTrue(engine.writer.append(key(i), chunk(key(i)))); // the seventh: a file compacted since
        }
        engine.segmentWriter.flush();
        dying.kill();
        engine.segmentWriter.filesDied(deadFile);
        assertFalse(engine.segmentWriter.sweepDeadFiles(Integer.MAX_VALUE), "one sweep looks up every key of the file");
        assertEquals(PER_SEGMENT, engine.segmentWriter.deadFilesChunksRemoved(), "the dead file's chunks left the index");
        assertTheDeadSegmentGoesFirst(engine, 6 * PER_SEGMENT);
    }

    /**
     * Fills the last free segment and one more chunk, so one segment is reclaimed: the one of the dead
     * file's chunks (keys from 0), while the {@code liveKept} oldest live chunks (keys from 1000) all stay.
     */
    private static void assertTheDeadSegmentGoesFirst(EngineFixture engine, int liveKept) throws Exception {
        appendAll(engine, 5000, PER_SEGMENT + 1);
        assertEquals(1, engine.segmentWriter.reclaimed());
        for (int i = 0; i < PER_SEGMENT; i++) {
            assertNull(engine.read(key(i)), "the dead file's segment went first: chunk " + i);
        }
        for (int i = 0; i < liveKept; i++) {
            assertEquals(chunk(key(1000 + i)), engine.read(key(1000 + i)), "the live file's chunks stay: " + i);
        }
    }

    /**
     * After a restart the recovered segments have no samples; a segment holding only chunks of a file
     * that changed while the cache was down is dead, and once sampled it goes before the order's turn.
     */
    @Test
    void recoveredSegmentsOfDeadFilesAreFoundOnceSampledAndReclaimedFirst() throws Exception {
        int deadFile = ChunkKeys.fileId(key(0));
        // Oldest first: three segments of a live file, then the file that changes, then three more.
        EngineFixture after = recovered(device("a", 8), Order.OLDEST_FIRST,
                new WriterPolicy(null, 0, 1, null, key -> ChunkKeys.fileId(key) != deadFile), before -> {
                    appendAll(before, 1000, 3 * PER_SEGMENT);
                    appendAll(before, 0, PER_SEGMENT);
                    appendAll(before, 3000, 3 * PER_SEGMENT);
                });
        assertEquals(7 * PER_SEGMENT, after.index.entries());
        assertEquals(7 * PER_SEGMENT, after.segmentWriter.entries().liveTotal(), "recovery's entries counted");
        assertTrue(after.segmentWriter.sampleRecovered(2), "two of seven looked at: more to look at");
        assertFalse(after.segmentWriter.sampleRecovered(100), "one pass looks at every segment");
        assertEquals(6 * PER_SEGMENT, after.index.entries(), "the changed file's chunks left the index as the pass read them");
        assertLiveCountsExact(after);
        assertTheDeadSegmentGoesFirst(after, 3 * PER_SEGMENT); // the order's first stays
    }

    /**
     * A segment three quarters of whose chunks are of a file compacted away goes before the order's
     * turn, once the sweep has taken that file's chunks out of the index; one with half is left to the order.
     */
    @Test
    void aSegmentWhoseChunksAreMostlyDeadIsReclaimedBeforeTheOrdersTurn() throws Exception {
        int deadFile = ChunkKeys.fileId(key(0));
        DyingFile dying = new DyingFile(deadFile);
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST,
                new WriterPolicy(null, 0, 1, null, dying), device("a", 8));
        int half = PER_SEGMENT / 2;
        int quarter = PER_SEGMENT / 4;
        // The oldest segment: half dead; five of a live file; the seventh: three quarters dead.
        for (int i = 0; i < PER_SEGMENT; i++) {
            long key = i < half ? key(i) : key(2000 + i);
            assertTrue(engine.writer.append(key, chunk(key)));
        }
        appendAll(engine, 1000, 5 * PER_SEGMENT);
        for (int i = 0; i < PER_SEGMENT; i++) {
            long key = i < PER_SEGMENT - quarter ? key(half + i) : key(3000 + i);
            assertTrue(engine.writer.append(key, chunk(key)));
        }
        engine.segmentWriter.flush();
        int mostlyDead = segmentOf(engine, key(3000 + PER_SEGMENT - 1));
        dying.kill();
        engine.segmentWriter.filesDied(deadFile);
        engine.segmentWriter.sweepDeadFiles(Integer.MAX_VALUE);
        assertEquals(half + PER_SEGMENT - quarter, engine.segmentWriter.deadFilesChunksRemoved());
        assertLiveCountsExact(engine);
        assertEquals(SegmentState.DOOMED, engine.table.state(mostlyDead), "doomed once the sweep ended");
        assertEquals(SegmentState.DURABLE, engine.table.state(segmentOf(engine, key(2000 + PER_SEGMENT - 1))),
                "half live: left to the order");
        // The last free segment filled, and one chunk more: the mostly dead segment is the one reclaimed.
        appendAll(engine, 5000, PER_SEGMENT + 1);
        assertEquals(1, engine.segmentWriter.reclaimed());
        assertNull(engine.read(key(3000 + PER_SEGMENT - 1)), "its live quarter went with it");
        assertEquals(chunk(key(2000 + PER_SEGMENT - 1)), engine.read(key(2000 + PER_SEGMENT - 1)), "the oldest stays");
    }

    /**
     * After a restart a segment's live chunks are weighed against the records its summary names, not
     * against what the index still holds: one whose chunks mostly changed after the last full checkpoint
     * (a delta names them) goes first.
     */
    @Test
    void aRecoveredSegmentWhoseChunksMostlyChangedBeforeTheRestartGoesFirst() throws Exception {
        int quarter = PER_SEGMENT / 4;
        MemoryDevice device = device("a", 8);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST, device);
        appendAll(before, 1000, 3 * PER_SEGMENT);
        appendAll(before, 0, PER_SEGMENT);
        appendAll(before, 3000, 3 * PER_SEGMENT);
        before.segmentWriter.flush();
        assertTrue(before.writer.checkpoint("full", true));
        for (int i = quarter; i < PER_SEGMENT; i++) {
            before.writer.invalidate(key(i)); // changed in their file
        }
        assertTrue(before.writer.checkpoint("delta"));
        EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST, device);
        after.recover(EngineFixture.INSTANCE);
        assertEquals(6 * PER_SEGMENT + quarter, after.index.entries());
        assertFalse(after.segmentWriter.sampleRecovered(100));
        int changed = segmentOf(after, key(0));
        assertEquals(PER_SEGMENT, after.segmentWriter.entries().records(changed), "as its summary names them");
        appendAll(after, 5000, PER_SEGMENT + 1);
        assertEquals(1, after.segmentWriter.reclaimed());
        assertNull(after.read(key(0)), "the mostly changed segment went first");
        assertEquals(chunk(key(1000)), after.read(key(1000)), "the order's first stays");
    }

    /**
     * A dropped file's segments, all their chunks dead, are free as soon as a checkpoint has released
     * them, not when the writer next needs a segment; the live file's stay.
     */
    @Test
    void segmentsLeftWithNoLiveChunkAreFreeOnceACheckpointReleasedThem() throws Exception {
        int deadFile = ChunkKeys.fileId(key(0));
        DyingFile dying = new DyingFile(deadFile);
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST,
                new WriterPolicy(null, 0, 8, null, dying), device("a", 8));
        appendAll(engine, 0, 3 * PER_SEGMENT);
        appendAll(engine, 1000, 3 * PER_SEGMENT);
        engine.segmentWriter.flush();
        assertEquals(2, engine.table.freeSegments(0));
        dying.kill();
        engine.segmentWriter.filesDied(deadFile);
        engine.segmentWriter.sweepDeadFiles(Integer.MAX_VALUE);
        assertFalse(engine.segmentWriter.reclaimEmptyReleased(10), "doomed, not yet released");
        assertEquals(2, engine.table.freeSegments(0));
        assertTrue(engine.writer.checkpoint("test"));
        long reclaimedBefore = engine.segmentWriter.reclaimed();
        assertTrue(engine.segmentWriter.reclaimEmptyReleased(2), "two at most in a call: more may be left");
        assertFalse(engine.segmentWriter.reclaimEmptyReleased(2));
        assertEquals(reclaimedBefore + 3, engine.segmentWriter.reclaimed());
        assertEquals(5, engine.table.freeSegments(0), "the dead file's three segments are free");
        for (int i = 0; i < 3 * PER_SEGMENT; i++) {
            assertEquals(chunk(key(1000 + i)), engine.read(key(1000 + i)), "the live file's chunks stay: " + i);
        }
    }

    /**
     * A drop that leaves more segments with no live chunk than a reclaim batch dooms them all at once,
     * and one checkpoint frees them; the segments it leaves mostly dead but with live chunks (lost or
     * reinserted when reclaimed) still go a batch per checkpoint.
     */
    @Test
    void aDropFreesEverySegmentItEmptiedAtOneCheckpointAndThoseItLeftMostlyDeadABatchAtATime() throws Exception {
        int deadFile = ChunkKeys.fileId(key(0));
        DyingFile dying = new DyingFile(deadFile);
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST,
                new WriterPolicy(null, 0, 1, null, dying), device("a", 8));
        appendAll(engine, 0, 3 * PER_SEGMENT); // three segments of the dying file alone
        int eighth = Math.max(1, PER_SEGMENT / 8);
        List<Integer> mostlyDead = new ArrayList<>();
        for (int s = 0; s < 2; s++) { // two of it but for an eighth of a live file's chunks
            for (int i = 0; i < PER_SEGMENT; i++) {
                int k = i < PER_SEGMENT - eighth ? 3 * PER_SEGMENT + s * PER_SEGMENT + i : 2000 + s * PER_SEGMENT + i;
                assertTrue(engine.writer.append(key(k), chunk(key(k))));
            }
            mostlyDead.add(segmentOf(engine, key(2000 + s * PER_SEGMENT + PER_SEGMENT - 1)));
        }
        engine.segmentWriter.flush();
        assertTrue(5 * PER_SEGMENT < 1000, "the dying file's keys stay in one file");
        int free = engine.table.freeSegments(0);
        dying.kill();
        engine.segmentWriter.filesDied(deadFile);
        engine.segmentWriter.sweepDeadFiles(Integer.MAX_VALUE);
        assertLiveCountsExact(engine);
        assertEquals(3, engine.table.count(0, SegmentState.DOOMED), "the three emptied, beyond the batch (one)");
        assertTrue(engine.writer.checkpoint("first"));
        engine.segmentWriter.reclaimEmptyReleased(64);
        assertEquals(free + 3, engine.table.freeSegments(0), "the three emptied are free after one checkpoint");
        assertEquals(1, engine.table.count(0, SegmentState.DOOMED), "a batch of the others, once the empties were released");
        assertEquals(SegmentState.DOOMED, engine.table.state(mostlyDead.get(0)));
        assertEquals(SegmentState.DURABLE, engine.table.state(mostlyDead.get(1)));
        for (int s = 0; s < 2; s++) {
            long live = key(2000 + s * PER_SEGMENT + PER_SEGMENT - 1);
            assertEquals(chunk(live), engine.read(live), "a live chunk serves until its segment is reclaimed: " + s);
        }
        assertTrue(engine.writer.checkpoint("second"));
        engine.segmentWriter.reclaimEmptyReleased(64);
        assertEquals(SegmentState.DOOMED, engine.table.state(mostlyDead.get(1)), "the next batch");
        assertEquals(1, engine.table.releasedSegments(0), "the first, released, reclaimed at need");
        assertEquals(1, engine.table.waitingForCheckpoint(), "the second");
        assertEquals(free + 3, engine.table.freeSegments(0), "those with live chunks are reclaimed at need");
    }

    /** A file that dies while its chunks are still in the open segment: that segment goes first once written. */
    @Test
    void aSegmentWhoseChunksDiedBeforeItWasWrittenGoesFirstOnceWritten() throws Exception {
        int deadFile = ChunkKeys.fileId(key(0));
        DyingFile dying = new DyingFile(deadFile);
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST,
                new WriterPolicy(null, 0, 1, null, dying), device("a", 8));
        appendAll(engine, 1000, PER_SEGMENT);
        appendAll(engine, 0, PER_SEGMENT - 1); // the open segment, not yet written
        int open = segmentOf(engine, key(0));
        dying.kill();
        engine.segmentWriter.filesDied(deadFile);
        engine.segmentWriter.sweepDeadFiles(Integer.MAX_VALUE);
        assertEquals(SegmentState.OPEN, engine.table.state(open));
        assertTrue(engine.writer.append(key(3000), chunk(key(3000))));
        engine.segmentWriter.flush();
        assertEquals(SegmentState.DOOMED, engine.table.state(open), "doomed as it was written");
        assertEquals(SegmentState.DURABLE, engine.table.state(segmentOf(engine, key(1000))));
    }

    /** The live chunks the writer counts per segment are what the index holds. */
    private static void assertLiveCountsExact(EngineFixture engine) {
        int[] counted = new int[engine.table.segments()];
        engine.index.forEachSlot((bucket, slot) -> {
            long address = io.flashchunk.cache.index.ChunkIndex.address(slot);
            int space = RecordAddress.space(address);
            counted[engine.table.segment(space, engine.spaces.layout(space).index(address))]++;
        });
        for (int segment = 0; segment < counted.length; segment++) {
            assertEquals(counted[segment], engine.segmentWriter.entries().live(segment), "segment " + segment);
        }
    }

    private static int segmentOf(EngineFixture engine, long key) {
        long address = engine.index.find(key);
        int space = RecordAddress.space(address);
        return engine.table.segment(space, engine.spaces.layout(space).index(address));
    }

    /**
     * A recovered segment whose summary admission reads first (the order's next when a segment opens)
     * is handled as the pass would: its dead file's chunks leave the index, and the pass skips it.
     */
    @Test
    void aRecoveredSummaryReadForAdmissionIsHandledAsThePassWould() throws Exception {
        int deadFile = ChunkKeys.fileId(key(0));
        EngineFixture after = recovered(device("a", 5), Order.OLDEST_FIRST,
                new WriterPolicy(new io.flashchunk.cache.admission.VictimAdmission(1 << 10, 1), 0, 1, null,
                        key -> ChunkKeys.fileId(key) != deadFile), before -> {
                    appendAll(before, 0, PER_SEGMENT); // the oldest: the order's next
                    appendAll(before, 1000, 3 * PER_SEGMENT);
                });
        assertEquals(4 * PER_SEGMENT, after.index.entries());
        // The last free segment opens: admission's victims are drawn from the order's next, read from flash.
        assertTrue(after.writer.append(key(2000), chunk(key(2000))));
        assertEquals(3 * PER_SEGMENT + 1, after.index.entries(), "the dead file's chunks left as its summary was read");
        assertLiveCountsExact(after);
    }

    /** Sampling after a start ends at the first summary the device fails to read: the writer waits one device timeout at most. */
    @Test
    void samplingRecoveredSegmentsStopsAtADeviceThatFails() throws Exception {
        FaultyDevice device = new FaultyDevice(device("a", 8));
        EngineFixture after = recovered(device, Order.ENGINE, WriterPolicy.NONE, before -> appendAll(before, 0, 5 * PER_SEGMENT));
        int faultsBefore = device.injected();
        device.failing(FaultyDevice.Op.READ, true);
        assertFalse(after.segmentWriter.sampleRecovered(100), "the pass is over");
        assertEquals(faultsBefore + 1, device.injected(), "one failed read, not one per segment");
    }

    /** What a test writes before the checkpoint its restart recovers from. */
    private interface Fill {
        void into(EngineFixture engine) throws Exception;
    }

    /**
     * A fresh engine of {@code order} and {@code policy} recovered from a checkpoint of what
     * {@code fill} wrote on {@code device}.
     */
    private static EngineFixture recovered(BlockDevice device, Order order, WriterPolicy policy, Fill fill)
            throws Exception {
        UUID instance = UUID.randomUUID();
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), order, device);
        fill.into(before);
        before.segmentWriter.flush();
        before.checkpointer(instance).checkpoint(EngineFixture.NO_FILES);
        EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), order, policy, device);
        after.recover(instance);
        return after;
    }

    private static void appendAll(EngineFixture engine, int firstKey, int count) throws Exception {
        for (int i = firstKey; i < firstKey + count; i++) {
            assertTrue(engine.writer.append(key(i), chunk(key(i))), "chunk " + i);
        }
    }

    private static int spaceOf(EngineFixture engine, int i) {
        return RecordAddress.space(engine.index.find(key(i)));
    }

    /**
     * A segment is filled through windows smaller than it: the windows already written are read from
     * flash while the segment is still open, the one filling from memory, and every chunk is served.
     */
    @Test
    void anOpenSegmentsWrittenWindowsAreReadFromFlashAndTheFillingOneFromMemory() throws Exception {
        EngineFixture engine = new EngineFixture(device("a", 4));
        int n = PER_SEGMENT - 1; // one segment, left open
        for (int i = 0; i < n; i++) {
            assertTrue(engine.writer.append(key(i), chunk(key(i))));
        }
        int segment = engine.table.segment(0, engine.spaces.layout(0).index(engine.index.find(key(0))));
        assertEquals(SegmentState.OPEN, engine.table.state(segment));
        assertEquals(segment, engine.table.segment(0, engine.spaces.layout(0).index(engine.index.find(key(n - 1)))),
                "all in one segment");
        assertTrue(engine.segmentWriter.sealed() == 0 && WINDOW_BYTES < SEGMENT_BYTES, "a segment of several windows, not sealed");
        for (int i = 0; i < n; i++) {
            assertEquals(chunk(key(i)), engine.read(key(i)), "chunk " + i);
        }
        assertTrue(engine.reader.flashReads() >= PER_SEGMENT / 4, "the first windows' chunks from flash: "
                + engine.reader.flashReads());
        assertTrue(engine.reader.memoryReads() >= 1, "the filling window's from memory");
        assertEquals(n, engine.reader.flashReads() + engine.reader.memoryReads());
        assertEquals(0, engine.mismatches);
    }

    /**
     * A failed write of a window gives up its segment when the writer next waits for it (at the
     * window after): every chunk appended to the segment till then leaves the index, the chunk that
     * found the failure is not cached, and the ones after go to another segment.
     */
    @Test
    void aSegmentWhoseWriteFailedServesNothing() throws Exception {
        FaultyDevice device = new FaultyDevice(device("a", 8));
        EngineFixture engine = new EngineFixture(device);
        int n = 3 * PER_SEGMENT;
        device.failNth(FaultyDevice.Op.WRITE, 1);
        boolean[] cached = new boolean[n];
        for (int i = 0; i < n; i++) {
            cached[i] = engine.writer.append(key(i), chunk(key(i)));
        }
        engine.segmentWriter.flush();
        assertEquals(1, engine.segmentWriter.failedWrites());
        int refused = firstRefused(cached);
        assertTrue(refused >= PER_SEGMENT / 4, "at least the failed window's chunks were appended: " + refused);
        for (int i = refused + 1; i < n; i++) {
            assertTrue(cached[i], "chunk " + i + " goes to another segment");
        }
        assertGoneThroughThenServed(engine, refused, n);
    }

    /** Chunks 0..{@code lastGone} left the index and are never served; the rest below {@code n} are, and none was refused. */
    private static void assertGoneThroughThenServed(EngineFixture engine, int lastGone, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            ByteBuffer read = engine.read(key(i));
            if (i <= lastGone) {
                assertEquals(RecordAddress.NONE, engine.index.find(key(i)), "chunk " + i + " left the index");
                assertNull(read, "chunk " + i + " of a segment given up");
            } else {
                assertEquals(chunk(key(i)), read, "chunk " + i);
            }
        }
        assertEquals(0, engine.mismatches);
    }

    /**
     * A checkpoint's write of the open segment that ends on a block leaves the full window nothing to
     * write: the writer goes on to the next window all the same, and keeps caching.
     */
    @Test
    void aWindowFullRightAfterACheckpointWroteItsRecordsGoesOn() throws Exception {
        MemoryDevice device = device("a", 8);
        EngineFixture engine = new EngineFixture(device);
        int length = 4096 - RecordFormat.HEADER_BYTES; // a record of exactly one block: every fill ends on a block
        int perWindow = WINDOW_BYTES / 4096;
        int key = 0;
        for (; key < perWindow; key++) {
            assertTrue(engine.writer.append(key(key), chunkOf(key(key), length)));
        }
        engine.segmentWriter.persist(); // the window's records, to its last byte, on flash
        int n = key + 3 * perWindow;
        for (; key < n; key++) {
            assertTrue(engine.writer.append(key(key), chunkOf(key(key), length)), "chunk " + key + " after the checkpoint");
        }
        engine.segmentWriter.flush();
        ByteBuffer into = ByteBuffer.allocate(length);
        for (int i = 0; i < n; i++) {
            assertEquals(length, engine.reader.read(key(i), length, into.clear()), "chunk " + i);
            assertEquals(chunkOf(key(i), length), into.flip(), "chunk " + i);
        }
        assertEquals(0, engine.segmentWriter.failedWrites());
        assertEquals(0, device.overlappingWrites(), "the checkpoint's writes and the windows' waited for each other");
    }

    private static ByteBuffer chunkOf(long key, int length) {
        return chunk(key).limit(length).slice();
    }

    private static int firstRefused(boolean[] cached) {
        for (int i = 0; i < cached.length; i++) {
            if (!cached[i]) {
                return i;
            }
        }
        throw new AssertionError("every chunk was cached");
    }

    @Test
    void anOpenSegmentWhoseEarlyWriteFailedServesNothingAndTheWriterGoesOn() throws Exception {
        FaultyDevice device = new FaultyDevice(device("a", 8));
        EngineFixture engine = new EngineFixture(device);
        int half = PER_SEGMENT / 2;
        for (int i = 0; i < half; i++) {
            engine.writer.append(key(i), chunk(key(i)));
        }
        device.failNth(FaultyDevice.Op.WRITE, 1);
        engine.segmentWriter.persist();
        assertEquals(1, engine.segmentWriter.failedWrites());
        assertEquals(0, engine.index.entries(), "the open segment's chunks left the index");
        for (int i = half; i < half + PER_SEGMENT; i++) {
            assertTrue(engine.writer.append(key(i), chunk(key(i))), "chunk " + i + " goes to another segment");
        }
        engine.segmentWriter.persist();
        engine.segmentWriter.flush();
        assertGoneThroughThenServed(engine, half - 1, half + PER_SEGMENT);
    }

    @Test
    void staleBytesFromFlashAreRefusedNotServed() throws Exception {
        FaultyDevice device = new FaultyDevice(device("a", 2));
        EngineFixture engine = new EngineFixture(device);
        int perSegment = PER_SEGMENT;
        for (int i = 0; i < perSegment; i++) {
            engine.writer.append(key(i), chunk(key(i)));
        }
        engine.segmentWriter.flush();
        device.staleReads(true); // segment 0's first use is kept; its second comes back as the first
        for (int i = perSegment; i < 3 * perSegment; i++) {
            engine.writer.append(key(i), chunk(key(i)));
        }
        engine.segmentWriter.flush();
        for (int i = 0; i < 3 * perSegment; i++) {
            ByteBuffer read = engine.read(key(i));
            assertTrue(read == null || read.equals(chunk(key(i))), "chunk " + i + " served wrong bytes");
        }
        assertTrue(engine.mismatches > 0, "some reads met the older use's records");
    }

    /**
     * A window's write that hangs past the timeout gives up its segment; while the device holds that
     * buffer the writer has one left, and once it is full nothing more is cached; when the device lets
     * go, caching goes on. Nothing of the given-up segment is ever served.
     */
    @Test
    void aHungWriteStopsCachingUntilTheDeviceLetsGoThenServesTheRest() throws Exception {
        FaultyDevice device = new FaultyDevice(device("a", 8));
        EngineFixture engine = new EngineFixture(TimeUnit.MILLISECONDS.toNanos(200), Order.ENGINE, device);
        int n = 3 * PER_SEGMENT;
        var gate = device.hang(FaultyDevice.Op.WRITE);
        boolean[] cached = new boolean[n];
        for (int i = 0; i < n; i++) {
            cached[i] = engine.writer.append(key(i), chunk(key(i)));
        }
        assertEquals(1, engine.segmentWriter.failedWrites(), "the first window's write timed out");
        int refused = firstRefused(cached);
        int cachedAfter = 0;
        for (int i = refused + 1; i < n; i++) {
            cachedAfter += cached[i] ? 1 : 0;
        }
        assertTrue(cachedAfter > 0 && cachedAfter < PER_SEGMENT, "one window's worth cached in the buffer left, "
                + "then nothing while the device holds the other: " + cachedAfter);
        assertFalse(cached[n - 1], "caching stopped");
        for (int i = 0; i < n; i++) {
            ByteBuffer read = engine.read(key(i));
            if (i <= refused || !cached[i]) {
                assertEquals(RecordAddress.NONE, engine.index.find(key(i)), "chunk " + i + " is not in the index");
                assertNull(read, "chunk " + i);
            } else {
                assertEquals(chunk(key(i)), read, "chunk " + i + " served from memory");
            }
        }
        assertEquals(cachedAfter, engine.index.entries(), "only the chunks of the buffer left are in the index");
        gate.complete(null);
        engine.segmentWriter.flush(); // waits for the held writes to end
        int base = n;
        for (int i = base; i < base + 2 * PER_SEGMENT; i++) {
            assertTrue(engine.writer.append(key(i), chunk(key(i))), "chunk " + i + " after the device answered");
        }
        engine.segmentWriter.flush();
        for (int i = 0; i < base + 2 * PER_SEGMENT; i++) {
            ByteBuffer read = engine.read(key(i));
            if (i <= refused || (i < base && !cached[i])) {
                assertNull(read, "chunk " + i);
            } else {
                assertEquals(chunk(key(i)), read, "chunk " + i);
            }
        }
    }

    @Test
    void aChunksNextRecordComesAlongAndIsNoLongerCurrentOnceItsSegmentIsReused() throws Exception {
        // Oldest first: the segment reused next is known (the first).
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST, device("a", 2));
        for (int i = 0; i < 2 * PER_SEGMENT; i++) {
            assertTrue(engine.writer.append(key(i), chunk(key(i))));
        }
        engine.segmentWriter.flush();
        SegmentReader.Hit hit = engine.reader.read(key(0), CHUNK, key(1));
        assertEquals(chunk(key(0)), hit.chunk());
        SegmentReader.Follower follower = hit.next();
        assertEquals(key(1), follower.key());
        assertEquals(chunk(key(1)), follower.chunk());
        assertTrue(engine.reader.stillCurrent(follower));
        hit.release();
        SegmentReader.Hit alone = engine.reader.read(key(1), CHUNK, key(3));
        assertNull(alone.next(), "chunk 3's record does not follow chunk 1's");
        alone.release();

        // The same two chunks again, first into the reused oldest segment: the same addresses, a later use.
        assertTrue(engine.writer.append(key(0), chunk(key(0))));
        assertTrue(engine.writer.append(key(1), chunk(key(1))));
        engine.segmentWriter.flush();
        assertEquals(follower.address(), engine.index.find(key(1)), "put back where the follower was read");
        assertFalse(engine.reader.stillCurrent(follower), "a record of the segment's earlier use is not current");
    }

    @Test
    void aRecordLongerThanTheChunkLengthAskedForIsRefused() throws Exception {
        EngineFixture engine = new EngineFixture(device("a", 2));
        engine.writer.append(key(1), chunk(key(1)));
        RecordMismatchException inMemory = assertThrows(RecordMismatchException.class,
                () -> engine.reader.read(key(1), 4096, ByteBuffer.allocate(CHUNK)));
        assertTrue(inMemory.getMessage().contains("at most 4096"), inMemory.getMessage());
        engine.segmentWriter.flush();
        RecordMismatchException onFlash = assertThrows(RecordMismatchException.class,
                () -> engine.reader.read(key(1), 8192, ByteBuffer.allocate(CHUNK)));
        assertTrue(onFlash.getMessage().contains("at most 8192") || onFlash.getMessage().contains("says 16384 bytes"),
                onFlash.getMessage());
        assertThrows(IllegalArgumentException.class, () -> engine.reader.read(key(1), CHUNK, ByteBuffer.allocate(100)));
        assertEquals(chunk(key(1)), engine.read(key(1)));
    }

    @Test
    void refusesAChunkLargerThanASegment() throws Exception {
        EngineFixture engine = new EngineFixture(device("a", 2));
        assertTrue(!engine.writer.append(key(1), ByteBuffer.allocate(SEGMENT_BYTES)));
        assertTrue(engine.writer.append(key(2), chunk(key(2))));
        assertTrue(!engine.writer.append(key(1), ByteBuffer.allocate(SEGMENT_BYTES)), "after a record too");
        assertEquals(chunk(key(2)), engine.read(key(2)));
        assertThrows(IllegalArgumentException.class, () -> new SegmentWriter(new SegmentTable(1, 1), engine.spaces,
                engine.index, new FifoReclaimOrder(), engine.segmentWriter.buffers()), "a table of more spaces");
        assertThrows(IllegalArgumentException.class, () -> new SegmentWriter(new SegmentTable(3), engine.spaces,
                engine.index, new FifoReclaimOrder(), engine.segmentWriter.buffers()), "a table of more segments");
    }

    /**
     * Readers read chunks while the writer appends, seals, writes, reclaims and reuses segments and
     * buffers over and over: every chunk served is that chunk's bytes.
     */
    @Test
    void readersRacingTheWriterAreServedOnlyTheirChunks() throws Exception {
        race(new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST, device("a", 3), device("b", 3)));
    }

    @Test
    void readersRacingTheWriterAreServedOnlyTheirChunksUnderTinyLfu() throws Exception {
        race(new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, device("a", 3), device("b", 3)));
    }

    /**
     * Readers of the chunks just appended, racing the writer as it hands each full window to the
     * device (whose writes end on a thread of their own) and reuses the buffer: a chunk in the index
     * is always served, from the buffer that holds its window or from flash once that window is
     * written, never missed, never another's bytes.
     */
    @Test
    void chunksJustAppendedAreServedWithoutAMissWhileTheirWindowsAreHandedOver() throws Exception {
        // Oldest first: whole older segments are reclaimed, so the last segment's chunks stay.
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST, device("a", 6));
        int recent = PER_SEGMENT;
        int appends = 100 * PER_SEGMENT;
        AtomicLong appended = new AtomicLong();
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<String> failure = new AtomicReference<>();
        AtomicLong served = new AtomicLong();
        CountDownLatch readersStarted = new CountDownLatch(2);
        Thread[] readers = new Thread[2];
        for (int r = 0; r < readers.length; r++) {
            Random random = new Random(r);
            readers[r] = new Thread(() -> {
                readersStarted.countDown();
                while (writing.get() && failure.get() == null) {
                    long count = appended.get();
                    if (count == 0) {
                        continue;
                    }
                    int i = (int) (count - 1 - random.nextInt((int) Math.min(recent, count)));
                    try {
                        ByteBuffer read = engine.read(key(i));
                        if (read == null) {
                            failure.compareAndSet(null, "chunk " + i + " of " + count + " appended was missed");
                        } else if (!read.equals(chunk(key(i)))) {
                            failure.compareAndSet(null, "chunk " + i + " was served another chunk's bytes");
                        } else {
                            served.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failure.compareAndSet(null, "chunk " + i + ": " + e);
                    }
                }
            });
            readers[r].start();
        }
        readersStarted.await();
        // At least 100 segments, and more until the readers were served 2,000 times (they may start late).
        for (int i = 0; (i < appends || served.get() < 2000) && i < 100_000 && failure.get() == null; i++) {
            assertTrue(engine.writer.append(key(i), chunk(key(i))), "chunk " + i + " appended");
            appended.set(i + 1);
        }
        writing.set(false);
        for (Thread reader : readers) {
            reader.join();
        }
        assertNull(failure.get());
        assertTrue(engine.segmentWriter.sealed() >= 99, engine.segmentWriter.sealed() + " segments sealed, each in "
                + SEGMENT_BYTES / WINDOW_BYTES + " windows or more");
        assertTrue(engine.reader.flashReads() > 0 && engine.reader.memoryReads() > 0, "served from flash "
                + engine.reader.flashReads() + " and memory " + engine.reader.memoryReads() + " times");
        assertTrue(served.get() >= 2000, "served " + served.get());
    }

    private static void race(EngineFixture engine) throws Exception {
        int keys = 400;
        CountDownLatch start = new CountDownLatch(2);
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<String> failure = new AtomicReference<>();
        AtomicLong served = new AtomicLong();
        Thread reader = new Thread(() -> {
            Random random = new Random(1);
            start.countDown();
            while (writing.get() && failure.get() == null) {
                long key = key(random.nextInt(keys));
                try {
                    ByteBuffer read = engine.read(key);
                    if (read != null) {
                        if (!read.equals(chunk(key))) {
                            failure.set("key " + Long.toHexString(key) + " served another chunk's bytes");
                        }
                        served.incrementAndGet();
                    }
                } catch (Exception e) {
                    failure.set(e.toString());
                }
            }
        });
        reader.start();
        start.countDown();
        start.await();
        Random random = new Random(2);
        // At least 6,000 appends, and more until the reader has been served 500 times (it may start late).
        for (int i = 0; (i < 6_000 || served.get() < 500) && i < 500_000 && failure.get() == null; i++) {
            long key = key(random.nextInt(keys));
            engine.writer.append(key, chunk(key));
        }
        writing.set(false);
        reader.join();
        assertNull(failure.get());
        assertTrue(served.get() >= 500, "served " + served.get() + ", refused " + engine.mismatches);
        assertTrue(engine.segmentWriter.reclaimed() > 50, engine.segmentWriter.reclaimed() + " reclaimed");
    }
}

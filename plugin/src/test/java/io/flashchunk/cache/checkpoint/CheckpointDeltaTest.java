package io.flashchunk.cache.checkpoint;

import static io.flashchunk.cache.engine.EngineFixture.AREAS;
import static io.flashchunk.cache.engine.EngineFixture.PER_SEGMENT;
import static io.flashchunk.cache.engine.EngineFixture.chunk;
import static io.flashchunk.cache.engine.EngineFixture.device;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.engine.EngineFixture;
import io.flashchunk.cache.engine.EngineFixture.Order;
import io.flashchunk.cache.files.NamedFiles;
import io.flashchunk.cache.format.CheckpointHeader;
import io.flashchunk.cache.format.DeltaHeader;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.write.Writer;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.MemoryDevice;
import java.nio.ByteBuffer;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Checkpoint deltas: what they name, what recovery makes of them, and what it refuses. */
class CheckpointDeltaTest {
    private static final UUID INSTANCE = UUID.randomUUID();
    private static final NamedFiles NO_FILES = EngineFixture.NO_FILES;

    private static EngineFixture engine(MemoryDevice... devices) {
        return new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, devices);
    }

    /** Appends chunks {@code from} until {@code to}; every one fits. */
    private static void append(EngineFixture engine, int from, int to) {
        for (int i = from; i < to; i++) {
            assertTrue(engine.segmentWriter.append(key(i), chunk(key(i))), "chunk " + i);
        }
    }

    /** An engine recovered on copies of the devices, and what its recovery found. */
    private record Recovered(EngineFixture engine, Recovery.Outcome outcome, MemoryDevice[] devices) {
    }

    /** A new engine over copies of the devices as they are now (a crash), recovered. */
    private static Recovered crash(MemoryDevice... devices) {
        MemoryDevice[] copies = new MemoryDevice[devices.length];
        for (int i = 0; i < devices.length; i++) {
            copies[i] = new MemoryDevice(devices[i].path(), devices[i].image(), 8);
        }
        EngineFixture after = engine(copies);
        return new Recovered(after, after.recover(INSTANCE), copies);
    }

    private static EngineFixture crashAndRecover(MemoryDevice... devices) {
        return crash(devices).engine();
    }

    /** Every chunk below {@code keys}: its own bytes or a miss, never a record of another; returns the hits. */
    private static int hits(EngineFixture engine, int keys) throws Exception {
        int hits = engine.hits(keys);
        assertEquals(0, engine.mismatches);
        return hits;
    }

    @Test
    void aDeltaNamesWhatChangedInAFewBytesAndRecoveryBringsBackWhatAFullCheckpointWould() throws Exception {
        MemoryDevice a = device("a", 12);
        MemoryDevice b = device("b", 12);
        EngineFixture before = engine(a, b);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        append(before, 0, 16 * PER_SEGMENT);
        before.segmentWriter.flush();
        Checkpointer.Result full = checkpointer.checkpoint(NO_FILES);
        assertEquals(0, full.deltaSpaces());
        assertEquals(16 * PER_SEGMENT, full.entries());

        // Half a segment more, the open segment written ahead: one segment changed, in part.
        append(before, 16 * PER_SEGMENT, 16 * PER_SEGMENT + PER_SEGMENT / 2);
        before.segmentWriter.persist();
        Checkpointer.Result delta = checkpointer.checkpoint(NO_FILES);
        assertEquals(2, delta.deltaSpaces());
        assertEquals(1, delta.changedSegments());
        assertEquals(0, delta.entries(), "a delta copies no index entry");
        assertTrue(delta.bytes() * 20 < full.bytes(), delta.bytes() + " bytes against the full one's " + full.bytes());

        int keys = 17 * PER_SEGMENT;
        Recovered recovered = crash(a, b);
        EngineFixture fromDelta = recovered.engine();
        assertArrayEquals(new int[] {1, 1}, recovered.outcome().loadedDeltas(), "both spaces from their first delta");
        // The same moment as a full checkpoint names it: written by a new run's checkpointer over the same state.
        Checkpointer fresh = before.checkpointer(INSTANCE, checkpointer.areaSequences(), () -> 0);
        assertEquals(0, fresh.checkpoint(NO_FILES).deltaSpaces());
        EngineFixture fromFull = crashAndRecover(a, b);
        assertEquals(16 * PER_SEGMENT + PER_SEGMENT / 2, fromFull.index.entries());
        assertEquals(fromFull.index.entries(), fromDelta.index.entries());
        for (int i = 0; i < keys; i++) {
            assertEquals(fromFull.index.find(key(i)), fromDelta.index.find(key(i)), "chunk " + i);
        }
        assertEquals(16 * PER_SEGMENT + PER_SEGMENT / 2, hits(fromDelta, keys));
        assertEquals(before.table.nextSequence(), fromDelta.table.nextSequence(), "sequences go on from the delta's");
    }

    @Test
    void recoveryReadsTheNewestDeltaThatChecksAndFallsBackPastATornOne() throws Exception {
        MemoryDevice a = device("a", 12);
        EngineFixture before = engine(a);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        append(before, 0, 3 * PER_SEGMENT);
        before.segmentWriter.flush();
        checkpointer.checkpoint(NO_FILES);
        append(before, 3 * PER_SEGMENT, 5 * PER_SEGMENT);
        before.segmentWriter.flush();
        long first = checkpointer.checkpoint(NO_FILES).sequence();
        append(before, 5 * PER_SEGMENT, 7 * PER_SEGMENT);
        before.segmentWriter.flush();
        long second = checkpointer.checkpoint(NO_FILES).sequence();

        EngineFixture newest = crashAndRecover(a);
        assertEquals(7 * PER_SEGMENT, newest.index.entries());
        assertEquals(7 * PER_SEGMENT, hits(newest, 7 * PER_SEGMENT));

        // The second delta torn: its header never written.
        CheckpointHeader base = CheckpointHeader.decode(block(a, AREAS.start(0)), AREAS.bodyCapacityBytes(), "A");
        long firstDelta = AREAS.start(0) + 1 + (base.bodyBytes() + BlockDevice.BLOCK_SIZE - 1) / BlockDevice.BLOCK_SIZE;
        java.util.List<Recovery.DeltaAt> deltas = Recovery.deltas(before.spaces.get(0), INSTANCE, 0, base);
        assertEquals(2, deltas.size());
        assertEquals(firstDelta, deltas.get(0).block());
        assertEquals(first, deltas.get(0).header().sequence());
        assertEquals(second, deltas.get(1).header().sequence());
        a.write(deltas.get(1).block(), AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE)).get();
        EngineFixture fallen = engine(new MemoryDevice("a", a.image(), 8));
        Recovery.Outcome outcome = fallen.recover(INSTANCE);
        assertArrayEquals(new int[] {1}, outcome.loadedDeltas(), "the first delta");
        assertEquals(5 * PER_SEGMENT, outcome.restoredEntries());
        assertEquals(5 * PER_SEGMENT, hits(fallen, 7 * PER_SEGMENT), "what the first delta named, nothing after");

        // The first delta's body damaged too: the full checkpoint alone.
        ByteBuffer body = block(a, firstDelta + 1);
        body.put(0, (byte) (body.get(0) ^ 1));
        a.write(firstDelta + 1, body.clear()).get();
        EngineFixture full = engine(new MemoryDevice("a", a.image(), 8));
        outcome = full.recover(INSTANCE);
        assertArrayEquals(new int[] {0}, outcome.loadedDeltas());
        assertTrue(outcome.problems().stream().anyMatch(p -> p.kind() == RecoveryProblem.Kind.DELTA_BODY),
                outcome.problems().toString());
        assertEquals(3 * PER_SEGMENT, hits(full, 7 * PER_SEGMENT));
    }

    @Test
    void anInvalidatedChunkNeverComesBackFromADeltaAndOneAppendedAfterItsInvalidationDoes() throws Exception {
        MemoryDevice a = device("a", 12);
        EngineFixture before = engine(a);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        // Invalidations go through the writer's step, which tells the checkpointer.
        Writer writer = before.parts.writer(checkpointer,
                new CheckpointSchedule(Integer.MAX_VALUE, Long.MAX_VALUE, EngineFixture.SEGMENT_BYTES, 0, () -> 0),
                NO_FILES, () -> 0);
        append(before, 0, 2 * PER_SEGMENT + 3);
        before.segmentWriter.persist(); // the third segment named in part by the full checkpoint
        checkpointer.checkpoint(NO_FILES);
        int sealedBefore = 1; // in a segment the delta leaves as it was
        int openBefore = 2 * PER_SEGMENT + 1; // in the segment named in part, which the delta names whole
        append(before, 2 * PER_SEGMENT + 3, 2 * PER_SEGMENT + 6);
        int appendedSince = 2 * PER_SEGMENT + 4; // appended after the full checkpoint, before its invalidation
        int again = 2 * PER_SEGMENT + 5; // invalidated, then appended anew in the same open segment
        for (int i : new int[] {sealedBefore, openBefore, appendedSince, again}) {
            writer.invalidate(key(i));
        }
        assertTrue(before.segmentWriter.append(key(again), chunk(key(again))));
        long againAt = before.index.find(key(again));
        append(before, 2 * PER_SEGMENT + 6, 3 * PER_SEGMENT + 2);
        before.segmentWriter.persist();
        Checkpointer.Result delta = checkpointer.checkpoint(NO_FILES);
        assertEquals(1, delta.deltaSpaces());

        EngineFixture after = crashAndRecover(a);
        for (int i : new int[] {sealedBefore, openBefore, appendedSince}) {
            assertEquals(RecordAddress.NONE, after.index.find(key(i)), "chunk " + i + " was invalidated");
        }
        assertEquals(againAt, after.index.find(key(again)), "appended after its invalidation: back, at its new record");
        assertEquals(before.index.entries(), after.index.entries(), "every other chunk back");
        assertEquals(before.index.entries(), hits(after, 3 * PER_SEGMENT + 2));
    }

    /**
     * A chunk appended and invalidated before a full checkpoint that the appender had not put on flash
     * first: its record lies past the part the full one names, and the next delta names that part
     * from the summary; the invalidation must go into that delta (the power-cut simulator found this).
     */
    @Test
    void aChunkInvalidatedBeforeAFullCheckpointThatNamedItsSegmentInPartNeverComesBack() throws Exception {
        MemoryDevice a = device("a", 12);
        EngineFixture before = engine(a);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        Writer writer = writer(before, checkpointer);
        append(before, 0, 2 * PER_SEGMENT + 3);
        before.segmentWriter.persist();
        int unwritten = 2 * PER_SEGMENT + 4;
        append(before, 2 * PER_SEGMENT + 3, unwritten + 1); // not on flash yet
        writer.invalidate(key(unwritten));
        Checkpointer.Result full = checkpointer.checkpoint(NO_FILES, true); // no persist first
        assertEquals(0, full.deltaSpaces());
        append(before, unwritten + 1, 2 * PER_SEGMENT + 8);
        before.segmentWriter.persist(); // the invalidated record written, and the summary naming it
        Checkpointer.Result delta = checkpointer.checkpoint(NO_FILES);
        assertEquals(1, delta.deltaSpaces());

        EngineFixture after = crashAndRecover(a);
        assertEquals(RecordAddress.NONE, after.index.find(key(unwritten)), "invalidated before the full checkpoint");
        assertEquals(before.index.entries(), after.index.entries(), "every other chunk back");
    }

    /**
     * A full checkpoint in steps while the writer goes on between them (appends that reclaim, and
     * invalidations): a crash before its end recovers the checkpoint before it; after, the full one and
     * the delta written at its end name exactly what the index holds, and no invalidated chunk.
     */
    @Test
    void aFullCheckpointInStepsNamesWhatTheIndexHoldsAtItsEndAndNothingInvalidatedMeanwhile() throws Exception {
        MemoryDevice a = device("a", 12);
        MemoryDevice b = device("b", 12);
        EngineFixture before = engine(a, b);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        Writer writer = writer(before, checkpointer);
        append(before, 0, 10 * PER_SEGMENT);
        before.segmentWriter.persist();
        Checkpointer.Result first = checkpointer.checkpoint(NO_FILES);
        append(before, 10 * PER_SEGMENT, 12 * PER_SEGMENT);
        before.segmentWriter.persist();
        assertEquals(null, checkpointer.start(NO_FILES, true), "a full checkpoint starts, to go on in steps");
        assertTrue(checkpointer.started());
        java.util.Set<Integer> invalidated = new java.util.HashSet<>();
        int next = 12 * PER_SEGMENT;
        int steps = 0;
        boolean crashedMidway = false;
        while (!checkpointer.step(1)) {
            steps++;
            if (steps <= 3 * PER_SEGMENT / 4) { // a segment and a half more, and some chunks invalidated
                writer.invalidate(key(steps * 7 % next));
                invalidated.add(steps * 7 % next);
                append(before, next, next + 2);
                next += 2;
            }
            if (steps == 5) {
                // a crash while the copy goes on: the checkpoint before it holds
                Recovery.Outcome midway = crash(a, b).outcome();
                assertEquals(first.sequence(), midway.areaSequences()[0][midway.loadedAreas()[0]]);
                crashedMidway = true;
            }
        }
        assertTrue(crashedMidway && steps > 3 * PER_SEGMENT / 4, steps + " steps");
        before.segmentWriter.persist();
        Checkpointer.Result result = checkpointer.finish(NO_FILES);
        assertEquals(0, result.deltaSpaces(), "a full checkpoint, with the delta of its end");
        assertTrue(!checkpointer.started());

        Recovered recovered = crash(a, b);
        assertArrayEquals(new int[] {1, 1}, recovered.outcome().loadedDeltas(), "the full checkpoint and its delta");
        EngineFixture after = recovered.engine();
        for (int i : invalidated) {
            assertEquals(RecordAddress.NONE, after.index.find(key(i)), "chunk " + i + " was invalidated");
        }
        for (int i = 0; i < next; i++) {
            assertEquals(before.index.find(key(i)), after.index.find(key(i)), "chunk " + i);
        }
        assertEquals(before.index.entries(), hits(after, next));
    }

    /**
     * Chunks the full checkpoint in steps copied, invalidated before its end: a crash between any two
     * of the end's writes recovers the checkpoint before it (which never named them) or the new one
     * with its delta (which forgets them), never the copy alone.
     */
    @Test
    void aCrashAtAnyWriteOfAFullCheckpointsEndNeverRecoversItsCopyWithoutItsDelta() throws Exception {
        MemoryDevice memory = device("a", 12);
        io.flashchunk.testing.FaultyDevice a = new io.flashchunk.testing.FaultyDevice(memory);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        Writer writer = writer(before, checkpointer);
        append(before, 0, 3 * PER_SEGMENT);
        before.segmentWriter.persist();
        checkpointer.checkpoint(NO_FILES);
        append(before, 3 * PER_SEGMENT, 4 * PER_SEGMENT); // named by the full checkpoint, not the one before
        before.segmentWriter.persist();
        assertEquals(null, checkpointer.start(NO_FILES, true));
        while (!checkpointer.step(2)) {
            // copied whole
        }
        for (int i = 3 * PER_SEGMENT; i < 4 * PER_SEGMENT; i++) {
            writer.invalidate(key(i));
        }
        java.util.List<byte[]> images = new java.util.ArrayList<>();
        a.delay(io.flashchunk.testing.FaultyDevice.Op.WRITE, () -> images.add(memory.image()));
        checkpointer.finish(NO_FILES);
        a.delay(io.flashchunk.testing.FaultyDevice.Op.WRITE, null);
        images.add(memory.image());
        assertTrue(images.size() >= 4, "the end's writes: body, delta, header: " + images.size());
        int fromNew = 0;
        for (int cut = 0; cut < images.size(); cut++) {
            EngineFixture after = crashAndRecover(new MemoryDevice("a", images.get(cut), 8));
            for (int i = 3 * PER_SEGMENT; i < 4 * PER_SEGMENT; i++) {
                assertEquals(RecordAddress.NONE, after.index.find(key(i)), "cut " + cut + ": chunk " + i + " came back");
            }
            fromNew += after.index.find(key(0)) != RecordAddress.NONE && cut == images.size() - 1 ? 1 : 0;
        }
        assertEquals(1, fromNew, "the last image recovers the new checkpoint");
    }

    /**
     * The device fails the writes at the end of a full checkpoint in steps: the writer counts one
     * failure, none is left under way (its loop would poll without pause for the steps), and the next
     * checkpoint is durable and names every chunk the appender kept.
     */
    @Test
    void aFullCheckpointInStepsThatCannotEndIsGivenUpOnceAndTheNextOneHolds() throws Exception {
        MemoryDevice memory = device("a", 12);
        io.flashchunk.testing.FaultyDevice a = new io.flashchunk.testing.FaultyDevice(memory);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        Writer writer = writer(before, checkpointer);
        append(before, 0, 2 * PER_SEGMENT);
        before.segmentWriter.persist();
        assertEquals(null, checkpointer.start(NO_FILES, true));
        append(before, 2 * PER_SEGMENT, 2 * PER_SEGMENT + 5); // not on flash yet
        a.failing(io.flashchunk.testing.FaultyDevice.Op.WRITE, true);
        writer.checkpointIfDue(false); // the copy's last step, then the end, on its own thread: its writes fail
        assertTrue(checkpointer.ending(), "the end runs");
        assertTrue(checkpointer.awaitEnded(10, TimeUnit.SECONDS));
        writer.checkpointIfDue(false); // the writer takes the failure
        assertEquals(1, writer.failedCheckpoints());
        assertTrue(!checkpointer.started(), "given up, not tried again at every turn");
        writer.checkpointIfDue(false);
        assertEquals(1, writer.failedCheckpoints());
        a.failing(io.flashchunk.testing.FaultyDevice.Op.WRITE, false);
        assertTrue(writer.checkpoint("asked for"));
        EngineFixture after = crashAndRecover(memory);
        assertEquals(before.index.entries(), after.index.entries());
        assertEquals(before.index.entries(), hits(after, 2 * PER_SEGMENT + 5));
    }

    /**
     * A checkpoint asked for while a full checkpoint's end has run and not been taken: the end is
     * counted as the durable checkpoint it is, and the one asked for names what came after it.
     */
    @Test
    void aCheckpointAskedForTakesTheEndUnderWayFirstAndCountsBoth() throws Exception {
        MemoryDevice a = device("a", 12);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        Writer writer = writer(before, checkpointer);
        append(before, 0, 2 * PER_SEGMENT);
        before.segmentWriter.persist();
        assertEquals(null, checkpointer.start(NO_FILES, true));
        while (!checkpointer.ending()) {
            writer.checkpointIfDue(false); // the copy's steps, then its end starts
        }
        assertTrue(checkpointer.awaitEnded(10, TimeUnit.SECONDS));
        append(before, 2 * PER_SEGMENT, 2 * PER_SEGMENT + 5);
        assertTrue(writer.checkpoint("asked for"));
        assertEquals(2, writer.checkpoints(), "the full checkpoint's end, then the one asked for");
        assertEquals(0, writer.failedCheckpoints());
        assertTrue(!checkpointer.started());
        EngineFixture after = crashAndRecover(a);
        assertEquals(before.index.entries(), hits(after, 2 * PER_SEGMENT + 5), "the chunks appended after the end too");
    }

    private static Writer writer(EngineFixture engine, Checkpointer checkpointer) {
        // Invalidations go through the writer's step, which tells the checkpointer.
        return engine.parts.writer(checkpointer,
                new CheckpointSchedule(Integer.MAX_VALUE, Long.MAX_VALUE, EngineFixture.SEGMENT_BYTES, 0, () -> 0),
                NO_FILES, () -> 0);
    }

    @Test
    void aRestartGoesOnWithADeltaNamingWhatTheRecoveredOnesNamedAndWhatTheRunChanged() throws Exception {
        MemoryDevice a = device("a", 12);
        MemoryDevice b = device("b", 12);
        EngineFixture first = engine(a, b);
        Checkpointer checkpointer = first.checkpointer(INSTANCE);
        Writer writer = writer(first, checkpointer);
        append(first, 0, 4 * PER_SEGMENT);
        first.segmentWriter.flush();
        Checkpointer.Result full = checkpointer.checkpoint(NO_FILES);
        assertEquals(0, full.deltaSpaces());
        int forgottenInFirstRun = 1;
        writer.invalidate(key(forgottenInFirstRun));
        append(first, 4 * PER_SEGMENT, 5 * PER_SEGMENT + PER_SEGMENT / 2);
        first.segmentWriter.persist();
        Checkpointer.Result firstDelta = checkpointer.checkpoint(NO_FILES);
        assertEquals(2, firstDelta.deltaSpaces(), "the open segment named in part");
        // After the delta, before the crash: two more chunks in the open segment, on flash with its
        // summary, one of them invalidated (in memory only: the crash loses that). Neither is named.
        int unnamed = 5 * PER_SEGMENT + PER_SEGMENT / 2;
        int unnamedInvalidated = unnamed + 1;
        append(first, unnamed, unnamedInvalidated + 1);
        writer.invalidate(key(unnamedInvalidated));
        first.segmentWriter.persist();

        Recovered recovered = crash(a, b);
        EngineFixture second = recovered.engine();
        Recovery.Outcome outcome = recovered.outcome();
        assertTrue(outcome.continuesChain(), outcome.toString());
        assertEquals(RecordAddress.NONE, second.index.find(key(unnamed)));
        Checkpointer goingOn = second.checkpointer(INSTANCE, outcome, () -> 0);
        assertEquals(firstDelta.bytes(), goingOn.recoveredBytes(),
                "the next checkpoint is weighed against the deltas read, not the full one");
        Writer secondWriter = writer(second, goingOn);
        int forgottenInSecondRun = 2;
        secondWriter.invalidate(key(forgottenInSecondRun));
        int keys = 8 * PER_SEGMENT;
        append(second, 6 * PER_SEGMENT, keys);
        second.segmentWriter.flush();
        Checkpointer.Result delta = goingOn.checkpoint(NO_FILES);
        assertEquals(2, delta.deltaSpaces(), "the first checkpoint after the restart is a delta: " + delta);
        assertEquals(0, delta.entries(), "a delta copies no index entry");

        Recovered fromDelta = crash(recovered.devices());
        assertArrayEquals(new int[] {2, 2}, fromDelta.outcome().loadedDeltas(), "both spaces from the second delta: " + fromDelta.outcome());
        EngineFixture third = fromDelta.engine();
        for (int i : new int[] {forgottenInFirstRun, forgottenInSecondRun, unnamed, unnamedInvalidated}) {
            assertEquals(RecordAddress.NONE, third.index.find(key(i)), "chunk " + i);
        }
        // The same moment as a full checkpoint names it.
        Checkpointer fresh = second.checkpointer(INSTANCE, goingOn.areaSequences(), () -> 0);
        assertEquals(0, fresh.checkpoint(NO_FILES).deltaSpaces());
        EngineFixture fromFull = crashAndRecover(recovered.devices());
        assertEquals(second.index.entries(), fromFull.index.entries());
        assertEquals(fromFull.index.entries(), third.index.entries());
        for (int i = 0; i < keys; i++) {
            assertEquals(fromFull.index.find(key(i)), third.index.find(key(i)), "chunk " + i);
        }
        assertEquals(second.index.entries(), hits(third, keys));
    }

    @Test
    void aRestartFromCheckpointsThatDisagreeWritesAFullOneFirst() throws Exception {
        MemoryDevice a = device("a", 12);
        MemoryDevice b = device("b", 12);
        EngineFixture first = engine(a, b);
        Checkpointer checkpointer = first.checkpointer(INSTANCE);
        append(first, 0, 3 * PER_SEGMENT);
        first.segmentWriter.flush();
        checkpointer.checkpoint(NO_FILES);
        append(first, 3 * PER_SEGMENT, 5 * PER_SEGMENT);
        first.segmentWriter.flush();
        assertEquals(2, checkpointer.checkpoint(NO_FILES).deltaSpaces());
        // Space b's delta damaged: b comes back from its full checkpoint, a from its delta.
        CheckpointHeader base = CheckpointHeader.decode(block(b, AREAS.start(0)), AREAS.bodyCapacityBytes(), "A");
        Recovery.DeltaAt delta = Recovery.deltas(first.spaces.get(1), INSTANCE, 0, base).get(0);
        b.write(delta.block() + 1, AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE)).get();

        Recovered recovered = crash(a, b);
        assertTrue(!recovered.outcome().continuesChain(), recovered.outcome().toString());
        Checkpointer next = recovered.engine().checkpointer(INSTANCE, recovered.outcome(), () -> 0);
        Checkpointer.Result result = next.checkpoint(NO_FILES);
        assertEquals(0, result.deltaSpaces(), "a full checkpoint first: " + result);
        assertEquals(recovered.engine().index.entries(), result.entries());
    }

    /**
     * A recovered chain whose area has no room for another delta as large as its last: the run's
     * first checkpoint is a full one, and the schedule weighs it as one (a review found it weighed as
     * a delta: a full copy of the index at the first interval).
     */
    @Test
    void aRecoveredChainWithNoRoomLeftIsWeighedAndWrittenAsAFullCheckpoint() throws Exception {
        MemoryDevice a = device("a", 12);
        EngineFixture first = engine(a);
        Checkpointer checkpointer = first.checkpointer(INSTANCE);
        append(first, 0, 8 * PER_SEGMENT);
        first.segmentWriter.flush();
        assertEquals(0, checkpointer.checkpoint(NO_FILES).deltaSpaces());
        byte[] lastDelta = null;
        for (int n = 0; n < 2 * DeltaHeader.MAX_DELTAS && checkpointer.checkpoint(NO_FILES).deltaSpaces() > 0; n++) {
            lastDelta = a.image(); // until the area is full, or the chain as long as a chain may be
        }
        assertTrue(lastDelta != null);
        EngineFixture after = engine(new MemoryDevice("a", lastDelta, 8));
        Recovery.Outcome outcome = after.recover(INSTANCE);
        assertTrue(outcome.continuesChain() && outcome.loadedDeltas()[0] > 1, outcome.toString());
        Checkpointer next = after.checkpointer(INSTANCE, outcome, () -> 0);
        assertEquals(outcome.restoredEntries() * CheckpointHeader.ENTRY_BYTES, next.recoveredBytes());
        Checkpointer.Result result = next.checkpoint(NO_FILES);
        assertEquals(0, result.deltaSpaces(), result.toString());
        assertEquals(8 * PER_SEGMENT, result.entries());
    }

    /** 200-byte chunks: a summary of a segment's hundreds of records takes several blocks. */
    private static ByteBuffer small(long key) {
        byte[] bytes = new byte[200];
        new java.util.Random(key).nextBytes(bytes);
        return ByteBuffer.wrap(bytes);
    }

    @Test
    void aSummaryTornWhenWrittenAgainAfterADeltaLosesNothingTheDeltaNamed() throws Exception {
        MemoryDevice a = device("a", 80); // an index with room for 500 small chunks
        EngineFixture before = engine(a);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        for (int i = 0; i < 500; i++) {
            assertTrue(before.segmentWriter.append(key(i), small(key(i))));
            if (i == 99) {
                before.segmentWriter.flush();
                assertEquals(0, checkpointer.checkpoint(NO_FILES).deltaSpaces());
            }
        }
        before.segmentWriter.persist();
        Checkpointer.Result delta = checkpointer.checkpoint(NO_FILES);
        assertEquals(1, delta.deltaSpaces(), "the open segment named in part, 400 records in it");
        assertEquals(500, before.index.entries());
        byte[] atDelta = a.image();
        int open = before.firstIn(io.flashchunk.cache.space.SegmentState.OPEN);
        long end = (before.spaces.layout(0).startByte(before.table.index(open)) + EngineFixture.SEGMENT_BYTES)
                / BlockDevice.BLOCK_SIZE;
        long summaryBlocks = (io.flashchunk.cache.format.SegmentSummary.bytes(400) + BlockDevice.BLOCK_SIZE - 1)
                / BlockDevice.BLOCK_SIZE;
        assertTrue(summaryBlocks > 1, summaryBlocks + " blocks");
        // The writer goes on in that segment, and writes its summary again ahead of the next checkpoint;
        // a power cut lands every block of that write but the last (the summary's trailer).
        for (int i = 500; i < 540; i++) {
            assertTrue(before.segmentWriter.append(key(i), small(key(i))));
        }
        before.segmentWriter.persist();
        byte[] torn = a.image();
        int block = BlockDevice.BLOCK_SIZE;
        System.arraycopy(atDelta, (int) ((end - 1) * block), torn, (int) ((end - 1) * block), block);
        EngineFixture after = engine(new MemoryDevice("a", torn, 8));
        Recovery.Outcome outcome = after.recover(INSTANCE);
        assertArrayEquals(new int[] {1}, outcome.loadedDeltas());
        assertEquals(500, after.index.entries(), "every chunk the delta named: " + outcome.problems());
        for (int i = 0; i < 500; i++) {
            ByteBuffer read = after.read(key(i));
            assertEquals(small(key(i)), read, "chunk " + i);
        }
    }

    @Test
    void aQuarterOfTheSegmentsChangedMakesTheNextCheckpointAFullOne() throws Exception {
        MemoryDevice a = device("a", 4 * (DeltaHeader.MIN_CHANGES + 2));
        EngineFixture before = engine(a);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        int segments = before.table.segmentsIn(0);
        assertTrue(segments / DeltaHeader.CHANGES_SHARE > DeltaHeader.MIN_CHANGES, segments + " segments");
        append(before, 0, PER_SEGMENT);
        before.segmentWriter.flush();
        assertEquals(0, checkpointer.checkpoint(NO_FILES).deltaSpaces());
        int quarter = segments / DeltaHeader.CHANGES_SHARE;
        append(before, PER_SEGMENT, quarter * PER_SEGMENT);
        before.segmentWriter.flush();
        Checkpointer.Result delta = checkpointer.checkpoint(NO_FILES);
        assertEquals(1, delta.deltaSpaces());
        assertEquals(quarter - 1, delta.changedSegments());
        append(before, quarter * PER_SEGMENT, (quarter + 1) * PER_SEGMENT);
        before.segmentWriter.flush();
        assertEquals(quarter, checkpointer.checkpoint(NO_FILES).changedSegments(), "a quarter: still a delta");
        append(before, (quarter + 1) * PER_SEGMENT, (quarter + 2) * PER_SEGMENT);
        before.segmentWriter.flush();
        Checkpointer.Result full = checkpointer.checkpoint(NO_FILES);
        assertEquals(0, full.deltaSpaces(), "more than a quarter changed: a full one");
        assertEquals((quarter + 2) * PER_SEGMENT, full.entries());
        assertArrayEquals(new long[] {full.sequence() - 1, full.sequence()}, checkpointer.areaSequences()[0],
                "into the other area; the deltas and their full checkpoint stay until then");
        EngineFixture after = crashAndRecover(a);
        assertEquals((quarter + 2) * PER_SEGMENT, hits(after, (quarter + 2) * PER_SEGMENT));
    }

    @Test
    void aDeltaLeftFromAnEarlierFullCheckpointInTheSameAreaIsNotRead() throws Exception {
        MemoryDevice a = device("a", 12);
        EngineFixture before = engine(a);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        append(before, 0, 2 * PER_SEGMENT);
        before.segmentWriter.flush();
        checkpointer.checkpoint(NO_FILES); // full, area A
        append(before, 2 * PER_SEGMENT, 3 * PER_SEGMENT);
        before.segmentWriter.flush();
        checkpointer.checkpoint(NO_FILES); // a delta after it
        // Two runs later, area A's full checkpoint is rewritten, the same size: the old delta's block
        // is right after it, where this checkpoint's first delta would go.
        for (int run = 0; run < 2; run++) {
            checkpointer = before.checkpointer(INSTANCE, checkpointer.areaSequences(), () -> 0);
            assertEquals(0, checkpointer.checkpoint(NO_FILES).deltaSpaces());
        }
        CheckpointHeader base = CheckpointHeader.decode(block(a, AREAS.start(0)), AREAS.bodyCapacityBytes(), "A");
        assertEquals(checkpointer.areaSequences()[0][0], base.sequence());
        assertTrue(Recovery.deltas(before.spaces.get(0), INSTANCE, 0, base).isEmpty(), "the old delta names another base");
        EngineFixture after = engine(new MemoryDevice("a", a.image(), 8));
        Recovery.Outcome outcome = after.recover(INSTANCE);
        assertArrayEquals(new int[] {0}, outcome.loadedDeltas());
        assertEquals(base.sequence(), outcome.areaSequences()[0][0]);
        assertEquals(3 * PER_SEGMENT, hits(after, 3 * PER_SEGMENT));
    }

    private static ByteBuffer block(MemoryDevice device, long lba) throws Exception {
        ByteBuffer block = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE);
        device.read(lba, block).get();
        return block.clear();
    }
}

package io.flashchunk.cache.checkpoint;

import static io.flashchunk.cache.engine.EngineFixture.AREAS;
import static io.flashchunk.cache.engine.EngineFixture.PER_SEGMENT;
import static io.flashchunk.cache.engine.EngineFixture.chunk;
import static io.flashchunk.cache.engine.EngineFixture.device;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.engine.EngineFixture;
import io.flashchunk.cache.engine.EngineFixture.Order;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.cache.files.FileRegistry;
import io.flashchunk.cache.files.FileTableCodec;
import io.flashchunk.cache.files.NamedFiles;
import io.flashchunk.cache.format.CheckpointHeader;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.reclaim.FifoReclaimOrder;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.FaultyDevice;
import io.flashchunk.testing.MemoryDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Checkpoints of the engine and recovery from them, over in-memory devices. */
class CheckpointTest {
    private static final UUID INSTANCE = UUID.randomUUID();
    private static final NamedFiles NO_FILES = EngineFixture.NO_FILES;

    /** Flips one byte of the body in checkpoint area B of {@code device}: its checksum no longer holds. */
    private static void damageBodyOfAreaB(MemoryDevice device) throws Exception {
        damageBody(device, 1);
    }

    /** Flips one byte of the body in checkpoint {@code area} (0 = A) of {@code device}. */
    private static void damageBody(MemoryDevice device, int area) throws Exception {
        ByteBuffer block = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE);
        device.read(AREAS.start(area) + 1, block).get();
        block.put(100, (byte) (block.get(100) ^ 1));
        device.write(AREAS.start(area) + 1, block.clear()).get();
    }

    /** A fresh engine over the same devices, recovered from their checkpoints. */
    private static EngineFixture restart(EngineFixture before, UUID instance,
                                                BlockDevice... devices) {
        EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, devices);
        after.recover(instance);
        return after;
    }

    /** Appends chunks {@code from} until {@code to}, checkpointing whenever the writer waits for one. */
    private static void write(EngineFixture engine, Checkpointer checkpointer, int from, int to)
            throws IOException {
        for (int i = from; i < to; i++) {
            if (!engine.segmentWriter.append(key(i), chunk(key(i)))) {
                checkpointer.checkpoint(NO_FILES);
                assertTrue(engine.segmentWriter.append(key(i), chunk(key(i))), "chunk " + i + " after a checkpoint");
            }
        }
    }

    /** Every chunk up to {@code keys} read back: its own bytes or a miss; returns the hits. */
    private static int hits(EngineFixture engine, int keys) throws Exception {
        return engine.hits(keys);
    }

    /**
     * A full checkpoint, as a run's first always is: written by a new checkpointer over the areas
     * {@code checkpointer} left (as after a restart); returns it, for the checkpoints after.
     */
    private static Checkpointer fullCheckpoint(EngineFixture engine, Checkpointer checkpointer) throws IOException {
        Checkpointer next = engine.checkpointer(INSTANCE, checkpointer.areaSequences(), () -> 0);
        assertEquals(0, next.checkpoint(NO_FILES).deltaSpaces(), "a full checkpoint");
        return next;
    }

    @Test
    void aRestartBringsBackEveryChunkOfTheSegmentsTheCheckpointNamed() throws Exception {
        MemoryDevice a = device("a", 6);
        MemoryDevice b = device("b", 6);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a, b);
        int n = 8 * PER_SEGMENT;
        write(before, before.checkpointer(INSTANCE), 0, n);
        before.segmentWriter.flush();
        Checkpointer.Result result = before.checkpointer(INSTANCE).checkpoint(NO_FILES);
        assertEquals(n, result.entries(), "every chunk is in a durable segment");
        assertEquals(0, result.refused());

        EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a, b);
        Recovery.Outcome outcome = after.recover(INSTANCE);
        assertEquals(n, outcome.restoredEntries());
        assertEquals(0, outcome.skippedEntries());
        assertEquals(8, outcome.restoredSegments());
        assertEquals(n, after.index.entries());
        assertEquals(n, hits(after, n), "every chunk comes back");
        assertEquals(0, after.mismatches);
        assertEquals(before.table.nextSequence(), after.table.nextSequence(),
                "sequences continue where the checkpoint's left off");

        // The recovered engine goes on: it reclaims the recovered segments and reuses them, and
        // every read is still right.
        Checkpointer checkpointer = after.checkpointer(INSTANCE, outcome.areaSequences(), () -> 6_000);
        write(after, checkpointer, n, 3 * n);
        after.segmentWriter.flush();
        assertTrue(after.segmentWriter.reclaimed() >= 8, after.segmentWriter.reclaimed() + " reclaimed");
        int hits = hits(after, 3 * n);
        assertEquals(after.index.entries(), hits, "every entry in the index is served");
        assertTrue(hits >= 9 * PER_SEGMENT, hits + " hits");
    }

    @Test
    void aCheckpointNamesTheOpenSegmentsRecordsSoFarAndTheSegmentGoesOnFilling() throws Exception {
        MemoryDevice a = device("a", 6);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        int third = PER_SEGMENT / 3;
        write(before, checkpointer, 0, third);
        before.segmentWriter.persist();
        assertEquals(third, checkpointer.checkpoint(NO_FILES).entries(), "the open segment's records are named");
        write(before, checkpointer, third, 2 * third);
        before.segmentWriter.persist();
        Checkpointer.Result second = checkpointer.checkpoint(NO_FILES);
        write(before, checkpointer, 2 * third, PER_SEGMENT);
        // A delta: the segment's use named again, its records from the first checkpoint's part on new.
        assertEquals(1, second.deltaSpaces());
        assertEquals(1, second.changedSegments());
        assertEquals(0, before.segmentWriter.sealed(), "checkpoints did not cut the segment short");

        // Crash: what the second checkpoint named comes back, from the segment's first use, written in two parts.
        MemoryDevice crashed = new MemoryDevice("a", a.image(), 8);
        EngineFixture after = restart(before, INSTANCE, crashed);
        assertEquals(2 * third, after.index.entries());
        assertEquals(2 * third, hits(after, PER_SEGMENT), "every chunk the checkpoint named");
        assertEquals(0, after.mismatches);

        // The segment filled and was written whole after all: a checkpoint now names every chunk.
        write(before, checkpointer, PER_SEGMENT, PER_SEGMENT + 1);
        assertEquals(1, before.segmentWriter.sealed());
        before.segmentWriter.persist();
        assertEquals(2, checkpointer.checkpoint(NO_FILES).changedSegments(), "the first segment whole, the next in part");
        EngineFixture again = restart(before, INSTANCE, new MemoryDevice("a", a.image(), 8));
        assertEquals(PER_SEGMENT + 1, again.index.entries());
        assertEquals(PER_SEGMENT + 1, hits(again, PER_SEGMENT + 1));
        assertEquals(0, again.mismatches);
    }

    @Test
    void entriesSplitAcrossBodyPiecesComeBackWhole() throws Exception {
        // Room in the engine's order for all 29 segments written (none doomed, so every one is named).
        MemoryDevice a = device("a", 40);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        int n = 29 * PER_SEGMENT; // 435 entries of 12 bytes after 320 bytes of segments: 5,540 bytes, two pieces
        write(before, before.checkpointer(INSTANCE), 0, n);
        before.segmentWriter.flush();
        before.checkpointer(INSTANCE).checkpoint(NO_FILES);
        EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        Recovery.Outcome outcome = Recovery.recover(after.spaces, INSTANCE,
                after.index, after.table, after.order, 4096);
        assertEquals(n, outcome.restoredEntries(), "every entry, the one split by the piece boundary too");
        assertEquals(n, hits(after, n));
        assertEquals(0, after.mismatches);
    }

    @Test
    void aRestartAfterACrashMidStreamServesNoWrongByte() throws Exception {
        MemoryDevice a = device("a", 5);
        MemoryDevice b = device("b", 5);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a, b);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        int keys = 30 * PER_SEGMENT;
        write(before, checkpointer, 0, keys);
        write(before, checkpointer, keys, keys + PER_SEGMENT / 2);
        checkpointer.checkpoint(NO_FILES); // with half a segment open, in memory only
        // Crash: the open segment is lost, nothing is flushed.
        EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a, b);
        Recovery.Outcome outcome = after.recover(INSTANCE);
        int hits = hits(after, keys + PER_SEGMENT);
        assertTrue(outcome.restoredEntries() > 0, "the last checkpoint named some chunks");
        assertEquals(0, after.mismatches, "every restored entry points at its own record");
        assertEquals(outcome.restoredEntries(), hits, "each restored entry is served");
    }

    /**
     * The writer appends, seals, reclaims and reuses segments while checkpoints are taken from
     * another thread; then the engine stops without a flush and a new one recovers from the devices:
     * every chunk it serves is that chunk's bytes.
     */
    @Test
    void checkpointsTakenWhileTheWriterRunsRecoverOnlyRightChunks() throws Exception {
        MemoryDevice a = device("a", 4);
        MemoryDevice b = device("b", 4);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a, b);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        int keys = 300;
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger checkpoints = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread checkpointing = new Thread(() -> {
            started.countDown();
            try {
                while (writing.get()) {
                    checkpointer.checkpoint(NO_FILES);
                    checkpoints.incrementAndGet();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        checkpointing.start();
        started.await();
        Random random = new Random(3);
        int appended = 0;
        // Until at least 40 checkpoints ran while the writer went on, and 40 segments were reclaimed.
        for (int i = 0; (checkpoints.get() < 40 || before.segmentWriter.reclaimed() < 40) && i < 2_000_000
                && failure.get() == null; i++) {
            long key = key(random.nextInt(keys));
            appended += before.segmentWriter.append(key, chunk(key)) ? 1 : 0;
        }
        writing.set(false);
        checkpointing.join();
        assertNull(failure.get());
        assertTrue(checkpoints.get() >= 40 && before.segmentWriter.reclaimed() >= 40,
                checkpoints.get() + " checkpoints, " + before.segmentWriter.reclaimed() + " reclaimed, " + appended + " appended");

        EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a, b);
        Recovery.Outcome outcome = after.recover(INSTANCE);
        int hits = hits(after, keys);
        assertTrue(outcome.restoredEntries() > 0, "restored " + outcome.restoredEntries());
        assertEquals(0, after.mismatches, "every restored entry points at its own record");
        assertEquals(outcome.restoredEntries(), hits);
    }

    @Test
    void aCorruptNewestBodyFallsBackToTheCheckpointEverySpaceHolds() throws Exception {
        MemoryDevice a = device("a", 6);
        MemoryDevice b = device("b", 6);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a, b);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        write(before, checkpointer, 0, 4 * PER_SEGMENT);
        before.segmentWriter.flush();
        long firstEntries = checkpointer.checkpoint(NO_FILES).entries();
        write(before, checkpointer, 4 * PER_SEGMENT, 8 * PER_SEGMENT);
        before.segmentWriter.flush();
        checkpointer = fullCheckpoint(before, checkpointer);
        long[][] sequences = checkpointer.areaSequences();
        assertArrayEquals(new long[] {1, 2}, sequences[0]);
        damageBodyOfAreaB(a); // space 0's newest: as a crash between the two spaces' checkpoints leaves it

        EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a, b);
        Recovery.Outcome outcome = after.recover(INSTANCE);
        assertArrayEquals(new int[] {0, 0}, outcome.loadedAreas(), "both spaces from checkpoint 1, in area A");
        assertArrayEquals(new long[] {1, 0}, outcome.areaSequences()[0], "space 0 falls back to checkpoint 1");
        assertArrayEquals(new long[] {1, 0}, outcome.areaSequences()[1],
                "space 1's checkpoint 2 is not built on: the next checkpoint goes there");
        assertEquals(firstEntries, outcome.restoredEntries(), "checkpoint 1's entries, every one");
        assertEquals(0, outcome.skippedEntries());
        assertEquals(outcome.restoredEntries(), after.index.entries(), "nothing of the corrupt body stays in the index");
        assertEquals(outcome.restoredEntries(), hits(after, 8 * PER_SEGMENT));

        // The next checkpoint keeps the one restored from in each space and replaces the other.
        Checkpointer next = after.checkpointer(INSTANCE, outcome, () -> 1);
        long third = next.checkpoint(NO_FILES).sequence();
        assertTrue(third > 2, "sequences are never reused: " + third);
        assertArrayEquals(new long[] {1, third}, next.areaSequences()[0]);
        assertArrayEquals(new long[] {1, third}, next.areaSequences()[1]);
    }

    /** Rewrites the header of {@code area} as {@code change} makes it from the one there (encoding reseals its checksum). */
    private static void rewriteHeader(MemoryDevice device, int area, UnaryOperator<CheckpointHeader> change)
            throws Exception {
        ByteBuffer block = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE);
        device.read(AREAS.start(area), block).get();
        CheckpointHeader header = CheckpointHeader.decode(block, AREAS.bodyCapacityBytes(), "area " + area);
        device.write(AREAS.start(area), change.apply(header).encode()).get();
    }

    /** A device of {@code checkpoints} checkpoints, each after two more segments' worth of chunks (area A, B, A...). */
    private static MemoryDevice checkpointed(int checkpoints) throws Exception {
        MemoryDevice a = device("a", 6);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        for (int c = 0; c < checkpoints; c++) {
            write(before, checkpointer, 2 * c * PER_SEGMENT, 2 * (c + 1) * PER_SEGMENT);
            before.segmentWriter.flush();
            checkpointer = fullCheckpoint(before, checkpointer);
        }
        return a;
    }

    @Test
    void twoAreasHoldingTheSameSequenceAreBothIgnored() throws Exception {
        MemoryDevice a = checkpointed(2);
        // Area B's header rewritten to say checkpoint 1, its checksum resealed: hostile or damaged
        // bytes that decode. Sequences are never reused, so which area is current cannot be told.
        rewriteHeader(a, 1, h -> {
            assertEquals(2, h.sequence());
            return new CheckpointHeader(h.instance(), h.spaceIndex(), 1, h.timestampMillis(), h.nextFileId(),
                    h.fileCount(), h.fileTableBytes(), h.segments(), h.segmentBytes(), h.buckets(), h.entryCount(),
                    h.nextSegmentSequence(), h.bodyCrc(), h.exactCopy());
        });

        EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        Recovery.Outcome outcome = after.recover(INSTANCE);
        assertEquals(0, outcome.restoredEntries());
        assertEquals(0, after.index.entries());
        assertTrue(outcome.problems().stream().anyMatch(p -> p.kind() == RecoveryProblem.Kind.BOTH_AREAS_ONE_SEQUENCE
                && p.space() == 0 && p.message().contains("each holds checkpoint 1")), outcome.problems().toString());
        assertEquals(0, hits(after, 4 * PER_SEGMENT), "nothing is served from an area that cannot be trusted");
    }

    @Test
    void aNextFileIdAtTheLimitIsRecoveredWithoutSizingAnythingByIt() throws Exception {
        MemoryDevice a = checkpointed(1);
        // The header's next file id at the largest int, its checksum resealed: bytes that decode but
        // that no writer of ours wrote. Nothing is sized by it; ids below it are never handed out.
        rewriteHeader(a, 0, h -> new CheckpointHeader(h.instance(), h.spaceIndex(), h.sequence(),
                h.timestampMillis(), Integer.MAX_VALUE, h.fileCount(), h.fileTableBytes(), h.segments(), h.segmentBytes(),
                h.buckets(), h.entryCount(), h.nextSegmentSequence(), h.bodyCrc(), h.exactCopy()));

        EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        Recovery.Outcome outcome = after.recover(INSTANCE);
        assertEquals(Integer.MAX_VALUE, outcome.nextFileId());
        assertEquals(2 * PER_SEGMENT, outcome.restoredEntries(), "every chunk comes back");
        assertEquals(2 * PER_SEGMENT, hits(after, 2 * PER_SEGMENT));
    }

    /**
     * Two checkpoints, the second after space 1's first segment was written again into space 0;
     * {@code damage} then takes areas out before a restart.
     */
    private static Recovery.Outcome movedThenRestarted(MemoryDevice a, MemoryDevice b, Damage damage,
                                                              EngineFixture[] after) throws Exception {
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a, b);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        write(before, checkpointer, 0, 4 * PER_SEGMENT); // segments in turn: space 0, 1, 0, 1
        before.segmentWriter.flush();
        checkpointer.checkpoint(NO_FILES);
        int moved = 0;
        for (int i = PER_SEGMENT; i < 2 * PER_SEGMENT; i++) { // space 1's first segment, written again
            assertTrue(before.segmentWriter.append(key(i), chunk(key(i))));
            moved += RecordAddress.space(before.index.find(key(i))) == 0 ? 1 : 0;
        }
        assertEquals(PER_SEGMENT, moved, "the chunks now sit in space 0");
        before.segmentWriter.flush();
        checkpointer = fullCheckpoint(before, checkpointer);
        assertArrayEquals(new long[] {1, 2}, checkpointer.areaSequences()[1]);
        damage.apply();
        after[0] = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a, b);
        return after[0].recover(INSTANCE);
    }

    @FunctionalInterface
    private interface Damage {
        void apply() throws Exception;
    }

    @Test
    void spacesSharingACheckpointComeBackFromItAsOneMoment() throws Exception {
        MemoryDevice a = device("a", 6);
        MemoryDevice b = device("b", 6);
        EngineFixture[] after = new EngineFixture[1];
        // Space 1's newest body is damaged: both spaces hold checkpoint 1, so both come back from it,
        // space 0 too, though its checkpoint 2 is whole: the moved chunks where checkpoint 1 saw them.
        Recovery.Outcome outcome = movedThenRestarted(a, b, () -> damageBodyOfAreaB(b), after);
        assertArrayEquals(new int[] {0, 0}, outcome.loadedAreas());
        assertEquals(0, outcome.skippedEntries(), "one moment of the index: nothing to leave out");
        assertEachChunkOnceTheMovedOnesIn(after[0], 1, "as checkpoint 1 saw it");
    }

    /** Every chunk of {@link #movedThenRestarted} back once, the moved ones in {@code space}. */
    private static void assertEachChunkOnceTheMovedOnesIn(EngineFixture after, int space, String why)
            throws Exception {
        assertEquals(4 * PER_SEGMENT, after.index.entries(), "each chunk once");
        assertEquals(4 * PER_SEGMENT, hits(after, 4 * PER_SEGMENT));
        for (int i = PER_SEGMENT; i < 2 * PER_SEGMENT; i++) {
            assertEquals(space, RecordAddress.space(after.index.find(key(i))), "chunk " + i + " " + why);
        }
    }

    @Test
    void spacesWithNoCheckpointInCommonHoldEachChunkOnce() throws Exception {
        MemoryDevice a = device("a", 6);
        MemoryDevice b = device("b", 6);
        EngineFixture[] after = new EngineFixture[1];
        // Space 0 keeps only checkpoint 2, space 1 only checkpoint 1: each its own, an exact copy of
        // its own moment, and the moved chunks are in both.
        Recovery.Outcome outcome = movedThenRestarted(a, b, () -> {
            damageBody(a, 0);
            damageBodyOfAreaB(b);
        }, after);
        assertArrayEquals(new int[] {1, 0}, outcome.loadedAreas(), "space 0 from checkpoint 2, space 1 from 1");
        assertArrayEquals(new long[] {1, 0}, outcome.areaSequences()[1], "space 1 falls back to checkpoint 1");
        assertEquals(PER_SEGMENT, outcome.skippedEntries(), "the moved chunks' older entries");
        assertEachChunkOnceTheMovedOnesIn(after[0], 0, "where it was last written, though two checkpoints hold it");
    }

    @Test
    void anotherInstanceRestoresNothingAndAnotherIndexSizeRestoresThroughTheSummaries() throws Exception {
        // Room in the engine's order for the two segments written: none doomed, both named.
        MemoryDevice a = device("a", 8);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        FileRegistry registry = new FileRegistry();
        FileIdentity identity = new FileIdentity("/data/ks/t/nb-1-big-Data.db", 1 << 20, 7, 42, 9, 3);
        registry.restore(5, identity);
        write(before, before.checkpointer(INSTANCE), 0, 2 * PER_SEGMENT);
        before.segmentWriter.flush();
        before.checkpointer(INSTANCE).checkpoint(EngineFixture.named(FileTableCodec.encode(List.of(registry.byId(5))), 6));

        EngineFixture other = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        Recovery.Outcome stranger = other.recover(UUID.randomUUID());
        assertEquals(0, stranger.restoredEntries());
        assertArrayEquals(new long[] {0, 0}, stranger.areaSequences()[0]);
        assertEquals(0, other.index.entries());

        EngineFixture same = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        ChunkIndex larger = new ChunkIndex(before.index.slots() * 4);
        Recovery.Outcome resized = Recovery.recover(same.spaces, INSTANCE,
                larger, same.table, same.order);
        // The devices' total size changed: each entry goes back by the key its segment's summary names.
        assertEquals(2 * PER_SEGMENT, resized.restoredEntries());
        assertEquals(0, resized.skippedEntries());
        assertEquals(2, resized.restoredSegments());
        for (int i = 0; i < 2 * PER_SEGMENT; i++) {
            assertEquals(before.index.find(key(i)), larger.find(key(i)), "chunk " + i + " at its record");
        }
        assertEquals(Map.of(5, identity), resized.files(), "the files are still known");
        assertEquals(6, resized.nextFileId());
    }

    /** Writes a checkpoint by hand into area A of {@code engine}'s only space: {@code named} segments, these slots. */
    private static void handMade(EngineFixture engine, long[] named, List<long[]> slots) throws IOException {
        handMade(engine, named, slots, false);
    }

    private static void handMade(EngineFixture engine, long[] named, List<long[]> slots, boolean exactCopy)
            throws IOException {
        ByteBuffer body = ByteBuffer.allocate(named.length * 8 + slots.size() * 12).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (long sequence : named) {
            body.putLong(sequence);
        }
        for (long[] slot : slots) {
            body.putInt((int) slot[0]).putLong(slot[1]);
        }
        body.flip();
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(body.duplicate());
        io.flashchunk.cache.checkpoint.BodyWriter writer = new io.flashchunk.cache.checkpoint.BodyWriter(
                engine.spaces.driver(0), AREAS.start(0), AREAS.bodyCapacityBytes(), "hand-made", () -> 0);
        writer.append(body);
        writer.finish(new CheckpointHeader(INSTANCE, 0, 5, 1, 1, 0, 0, named.length,
                EngineFixture.SEGMENT_BYTES, engine.index.buckets(), slots.size(), 1000,
                (int) crc.getValue(), exactCopy).encode());
    }

    @Test
    void aCopyMadeWhileTheIndexChangedIsRestoredWithEachEntryOnceAndAnExactOneWhole() throws Exception {
        // Room in the engine's order for the two segments written: none doomed, both named.
        MemoryDevice a = device("a", 8);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        Checkpointer checkpointer = before.checkpointer(INSTANCE);
        write(before, checkpointer, 0, 2 * PER_SEGMENT);
        before.segmentWriter.flush();
        checkpointer.checkpoint(NO_FILES);
        CheckpointHeader written = null;
        for (int area = 0; area < 2; area++) {
            Recovery.AreaHeader found = Recovery.readHeader(before.spaces.get(0), INSTANCE, area);
            written = found.header() != null ? found.header() : written;
        }
        assertTrue(written != null && written.exactCopy(), "nothing changed the index while it was copied");

        List<long[]> slots = new ArrayList<>();
        before.index.forEachSlot((bucket, slot) -> slots.add(new long[] {bucket, slot}));
        slots.add(slots.get(7)); // a copy made while the writer went on can hold an entry twice
        long[] named = new long[before.table.segments()];
        for (int segment = 0; segment < named.length; segment++) {
            named[segment] = before.table.state(segment) == SegmentState.DURABLE ? before.table.sequence(segment) : 0;
        }
        handMade(before, named, slots, false);
        EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        Recovery.Outcome outcome = after.recover(INSTANCE);
        assertEquals(2 * PER_SEGMENT, outcome.restoredEntries(), "the entry given twice is restored once");
        assertEquals(1, outcome.skippedEntries());
        assertEquals(2 * PER_SEGMENT, after.index.entries());
        assertEquals(2 * PER_SEGMENT, hits(after, 2 * PER_SEGMENT));
    }

    @Test
    void recoveryRestoresOnlySlotsIntoNamedSegmentsAndRefusesSlotsOutsideTheSpace() throws Exception {
        MemoryDevice a = device("a", 4);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        write(before, before.checkpointer(INSTANCE), 0, 2 * PER_SEGMENT);
        before.segmentWriter.flush();
        List<long[]> slots = new ArrayList<>();
        before.index.forEachSlot((bucket, slot) -> slots.add(new long[] {bucket, slot}));
        assertEquals(2 * PER_SEGMENT, slots.size());
        long[] named = new long[4];
        int first = before.spaces.layout(0).index(ChunkIndex.address(slots.get(0)[1]));
        named[first] = before.table.sequence(first); // the other written segment is not named
        handMade(before, named, slots);
        EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        Recovery.Outcome outcome = after.recover(INSTANCE);
        assertEquals(PER_SEGMENT, outcome.restoredEntries(), "the named segment's slots");
        assertEquals(PER_SEGMENT, outcome.skippedEntries(), "the other segment's");
        assertEquals(1, outcome.restoredSegments());
        assertEquals(PER_SEGMENT, hits(after, 2 * PER_SEGMENT));
        assertEquals(0, after.mismatches);

        long elsewhere = RecordAddress.of(1, EngineFixture.FIRST_BYTE / RecordAddress.MIN_SECTOR_BYTES);
        slots.add(new long[] {0, 5L << 40 | elsewhere});
        handMade(before, named, slots);
        EngineFixture refusing = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        Recovery.Outcome refused = refusing.recover(INSTANCE);
        assertEquals(0, refused.restoredEntries(), "a checkpoint with a slot outside its space is refused whole");
        assertEquals(0, refusing.index.entries(), "and what it restored before is taken out again");
        assertEquals(0, refused.restoredSegments());
    }

    /**
     * A doomed segment serves until it is reclaimed, but a checkpoint started after the doom leaves
     * its chunks out: after a crash they do not come back, since the segment may have been reused.
     */
    @Test
    void aCheckpointLeavesADoomedSegmentsChunksOutThoughItStillServesThem() throws Exception {
        MemoryDevice a = device("a", 4);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        int i = 0;
        while (before.table.waitingForCheckpoint() == 0) {
            before.segmentWriter.append(key(i), chunk(key(i)));
            assertTrue(++i < 20 * PER_SEGMENT, "no segment was doomed");
        }
        int doomed = before.firstIn(SegmentState.DOOMED);
        List<Integer> inDoomed = new ArrayList<>();
        int inDurable = 0;
        for (int k = 0; k < i; k++) {
            long address = before.index.find(key(k));
            int segment = address == RecordAddress.NONE ? -1 : before.table.segment(0, before.spaces.layout(0).index(address));
            if (segment == doomed) {
                inDoomed.add(k);
            } else if (segment != -1 && before.table.state(segment) == SegmentState.DURABLE) {
                inDurable++;
            }
        }
        assertEquals(PER_SEGMENT, inDoomed.size(), "the doomed segment's chunks are in the index");
        assertTrue(inDurable >= PER_SEGMENT, inDurable + " chunks in durable segments");
        Checkpointer.Result written = before.checkpointer(INSTANCE).checkpoint(NO_FILES);
        assertEquals(inDurable, written.entries(), "the durable segments' chunks, not the doomed one's");
        for (int k : inDoomed) {
            assertEquals(chunk(key(k)), before.read(key(k)), "chunk " + k + " is served until its segment is reclaimed");
        }

        EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a);
        Recovery.Outcome outcome = after.recover(INSTANCE);
        assertEquals(written.entries(), outcome.restoredEntries());
        for (int k : inDoomed) {
            assertNull(after.read(key(k)), "chunk " + k + " of the doomed segment does not come back");
        }
        assertEquals(SegmentState.FREE, after.table.state(doomed));
        assertEquals((int) written.entries(), hits(after, i));
    }

    @Test
    void aFailedCheckpointFreesNothingAndSpendsItsSequence() throws Exception {
        MemoryDevice a = device("a", 4);
        FaultyDevice b = new FaultyDevice(device("b", 4));
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a, b);
        Checkpointer checkpointer = engine.checkpointer(INSTANCE);
        int i = 0;
        while (engine.table.waitingForCheckpoint() == 0) { // every segment full, then one doomed
            engine.segmentWriter.append(key(i), chunk(key(i)));
            assertTrue(++i < 20 * PER_SEGMENT, "no segment was doomed");
        }
        b.failNth(FaultyDevice.Op.WRITE, 2); // space 1's first body write, after space 0's body and header
        assertThrows(IOException.class, () -> checkpointer.checkpoint(NO_FILES));
        assertEquals(1, engine.table.waitingForCheckpoint(), "the doomed segment still waits");
        assertEquals(1, checkpointer.checkpoint(NO_FILES).freedSegments());
        long[][] sequences = checkpointer.areaSequences();
        assertEquals(2, Math.max(sequences[0][0], sequences[0][1]), "the failed checkpoint's sequence is not reused");
        assertEquals(2, Math.max(sequences[1][0], sequences[1][1]));
        assertNotEquals(sequences[0][0], sequences[0][1]);
    }

    @Test
    void aCheckpointSequenceIsNeverOneAHeaderAlreadyShowed() throws Exception {
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, device("a", 3));
        Checkpointer checkpointer = new Checkpointer(engine.table, engine.index, engine.spaces, INSTANCE, new long[][] {{0, 7}}, 50, () -> 0);
        assertEquals(51, checkpointer.checkpoint(NO_FILES).sequence(), "above a header whose body did not load");
        Checkpointer late = new Checkpointer(engine.table, engine.index, engine.spaces, INSTANCE, new long[][] {{0, 7}}, 50, () -> 3);
        assertEquals((3L << 20) + 1, late.checkpoint(NO_FILES).sequence(), "and above the clock");
    }

    @Test
    void theFileTableComesBackWithItsCheckpoint() throws Exception {
        MemoryDevice a = device("a", 3);
        MemoryDevice b = device("b", 3);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, a, b);
        FileRegistry registry = new FileRegistry();
        List<io.flashchunk.cache.files.CachedFile> files = new ArrayList<>();
        for (int id = 1; id <= 50; id++) {
            registry.restore(id, new FileIdentity("/data/ks/t/nb-" + id + "-big-Data.db", id * 1000L, id, 100 + id,
                    id * 7L, id * 3L));
            files.add(registry.byId(id));
        }
        write(before, before.checkpointer(INSTANCE), 0, PER_SEGMENT);
        before.segmentWriter.flush();
        before.checkpointer(INSTANCE).checkpoint(EngineFixture.named(FileTableCodec.encode(files), 77));
        EngineFixture after = restart(before, INSTANCE, a, b);
        assertEquals(PER_SEGMENT, after.index.entries());
        Recovery.Outcome outcome = Recovery.recover(after.spaces, INSTANCE, new ChunkIndex(after.index.slots() * 9 / 10), new SegmentTable(3, 3),
                new FifoReclaimOrder());
        assertEquals(50, outcome.files().size());
        assertEquals(registry.byId(17).identity(), outcome.files().get(17));
        assertEquals(77, outcome.nextFileId());
    }

    /**
     * A body write failing part-way through a full checkpoint's copy (a body of more than one 4 MiB
     * piece) ends the copy's pass over the index: the next checkpoint, on a healthy device, is durable
     * (a review found every later one refused while the pass stayed open).
     */
    @Test
    void aWriteFailingDuringAFullCheckpointsCopyLeavesTheNextOneFree() throws Exception {
        long areaBlocks = 1700; // bodies of about 6.6 MiB: more than one piece
        io.flashchunk.cache.format.CheckpointAreas areas = new io.flashchunk.cache.format.CheckpointAreas(1,
                1 + areaBlocks, (areaBlocks - 1) * BlockDevice.BLOCK_SIZE);
        long firstByte = (1 + 2 * areaBlocks) * BlockDevice.BLOCK_SIZE;
        long capacity = firstByte + 4L * EngineFixture.SEGMENT_BYTES;
        FaultyDevice device = new FaultyDevice(MemoryDevice.blank("a", capacity / BlockDevice.BLOCK_SIZE, 8));
        io.flashchunk.cache.format.SegmentLayout layout = io.flashchunk.cache.format.SegmentLayout.of(firstByte,
                EngineFixture.SEGMENT_BYTES, capacity, RecordAddress.MIN_SECTOR_BYTES);
        io.flashchunk.cache.space.AddressSpaces spaces = new io.flashchunk.cache.space.AddressSpaces(List.of(
                new io.flashchunk.cache.space.AddressSpace(0, new io.flashchunk.cache.driver.StorageDriver(device, 2,
                        TimeUnit.SECONDS.toNanos(5)), layout, areas)));
        SegmentTable table = new SegmentTable(layout.segments());
        long[] durable = new long[layout.segments()];
        durable[0] = 1;
        table.restoreDurable(durable);
        ChunkIndex index = new ChunkIndex(600_000);
        io.flashchunk.cache.index.ChunkLocations locations = new io.flashchunk.cache.index.ChunkLocations(index);
        int sectors = EngineFixture.SEGMENT_BYTES / RecordAddress.MIN_SECTOR_BYTES;
        for (long key = 1; key <= 450_000; key++) {
            locations.placed(key, layout.address(0, 0, (int) (key % sectors)));
        }
        Checkpointer checkpointer = new Checkpointer(table, index, spaces, INSTANCE, new long[1][2], 0, () -> 0);
        device.failNth(FaultyDevice.Op.WRITE, 2); // the first: the area's header wiped; the second: the body's first piece
        assertThrows(IOException.class, () -> checkpointer.checkpoint(NO_FILES, true));
        Checkpointer.Result next = checkpointer.checkpoint(NO_FILES, true);
        assertEquals(index.entries(), next.entries(), "the next checkpoint names every entry");
    }
}
package io.flashchunk.cache.checkpoint;

import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.files.FileTableCodec;
import io.flashchunk.cache.files.NamedFiles;
import io.flashchunk.cache.format.CheckpointAreas;
import io.flashchunk.cache.format.CheckpointHeader;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.space.AddressSpaces;
import io.flashchunk.cache.space.SegmentTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;

/**
 * Writes checkpoints of the engine: per address space, into the older of its two areas, the
 * segments a checkpoint names, the file table, and the index's slots that point into those segments
 * (12 bytes a chunk), streamed, so of any size. The order makes a crash at any moment safe:
 * <ol>
 *   <li>{@link SegmentTable#startCheckpoint}: the durable segments are named, and from now on a
 *       segment reclaimed waits for a checkpoint after this one;</li>
 *   <li>every space's body, then its header, each made durable ({@link BodyWriter});</li>
 *   <li>only once every space's is durable, {@link SegmentTable#checkpointDurable} frees the segments
 *       retired before step 1 and releases those doomed before it.</li>
 * </ol>
 * The copy of the index is fuzzy if the writer goes on meanwhile (run on the writer's thread, as the
 * engine does, it is exact, and the header says so: recovery then puts it back without a duplicate
 * check): a slot pointing into a segment not named is left out, and recovery trusts nothing else,
 * since every record read is checked against its key and its segment's sequence. A failed
 * checkpoint spends its sequence (a space may hold it durably) and frees nothing. One checkpoint at
 * a time.
 */
public final class Checkpointer {
    private final SegmentTable table;
    private final ChunkIndex index;
    private final AddressSpaces spaces;
    private final UUID instance;
    private final LongSupplier clockMillis;
    /** Sequence of the checkpoint in each space's two areas, 0 when none is valid. */
    private final long[][] areaSequences;
    private long spentSequence;

    /** What one checkpoint did; {@code freedSegments}: retired segments freed and doomed ones released. */
    public static final class Result {
        private final long sequence;
        private final long entries;
        private final long refused;
        private final long bytes;
        private final int freedSegments;
        private final long startedMillis;

        /** @param startedMillis when it started, as its headers say (the engine's clock) */
        public Result(long sequence, long entries, long refused, long bytes, int freedSegments, long startedMillis) {
            this.sequence = sequence;
            this.startedMillis = startedMillis;
            this.entries = entries;
            this.refused = refused;
            this.bytes = bytes;
            this.freedSegments = freedSegments;
        }

        public long sequence() {
            return sequence;
        }

        public long entries() {
            return entries;
        }

        public long refused() {
            return refused;
        }

        public long bytes() {
            return bytes;
        }

        public int freedSegments() {
            return freedSegments;
        }

        public long startedMillis() {
            return startedMillis;
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof Result)) {
                return false;
            }
            Result other = (Result) o;
            return sequence == other.sequence
                    && entries == other.entries
                    && refused == other.refused
                    && bytes == other.bytes
                    && freedSegments == other.freedSegments
                    && startedMillis == other.startedMillis;
        }

        @Override
        public int hashCode() {
            return Objects.hash(sequence, entries, refused, bytes, freedSegments, startedMillis);
        }

        @Override
        public String toString() {
            return "Result[sequence=" + sequence + ", entries=" + entries + ", refused=" + refused + ", bytes=" + bytes
                    + ", freedSegments=" + freedSegments + ", startedMillis=" + startedMillis + "]";
        }
    }

    /**
     * @param areaSequences per space, the sequence each area held at start (0 = none), as recovery found them
     * @param highestSeen   the highest checkpoint sequence any header showed, valid or not: never reused
     */
    public Checkpointer(SegmentTable table, ChunkIndex index, AddressSpaces spaces, UUID instance,
                        long[][] areaSequences, long highestSeen, LongSupplier clockMillis) {
        int count = table.spaces();
        if (spaces.count() != count || areaSequences.length != count) {
            throw new IllegalArgumentException("one address space and one pair of area sequences per space");
        }
        this.table = table;
        this.index = index;
        this.spaces = spaces;
        this.instance = instance;
        this.clockMillis = clockMillis;
        this.areaSequences = new long[count][];
        for (int s = 0; s < count; s++) {
            this.areaSequences[s] = areaSequences[s].clone();
            spentSequence = Math.max(spentSequence, Math.max(areaSequences[s][0], areaSequences[s][1]));
        }
        // Above every header seen and above the clock, as segment sequences: a header that could not be
        // read at start (and so is not counted) must never tie with or outrank a later checkpoint.
        spentSequence = Math.max(spentSequence, Math.max(highestSeen, clockMillis.getAsLong() << 20));
    }

    /**
     * Writes one checkpoint naming the segments durable now, their chunks, and {@code files} as they
     * are after the segments were named; throws when any space's write failed, after which the
     * previous checkpoint still holds where this one is not durable.
     */
    public synchronized Result checkpoint(NamedFiles namedFiles) throws IOException {
        SegmentTable.Named named = table.startCheckpoint();
        long startedMillis = clockMillis.getAsLong();
        // Read after naming: a chunk in a named segment was appended earlier, its file registered earlier.
        FileTableCodec.Encoded files = namedFiles.table();
        int nextFileId = namedFiles.nextFileId();
        long sequence = spentSequence = Math.addExact(spentSequence, 1);
        int count = spaces.count();
        SpaceBody[] bodies = new SpaceBody[count];
        int[] area = new int[count];
        for (int s = 0; s < count; s++) {
            // The older area: the newest durable checkpoint of this space is never overwritten.
            area[s] = areaSequences[s][0] <= areaSequences[s][1] ? 0 : 1;
            // Until its header is written again, the area holds no checkpoint.
            areaSequences[s][area[s]] = 0;
            bodies[s] = new SpaceBody(spaces.driver(s), spaces.get(s).areas(), area[s], s);
            bodies[s].appendSegments(named.sequences());
            bodies[s].append(ByteBuffer.wrap(files.bytes()));
        }
        long changesBefore = index.changes();
        try {
            index.forEachSlot((bucket, slot) -> {
                long address = ChunkIndex.address(slot);
                int s = RecordAddress.space(address);
                if (s < count && spaces.layout(s).contains(address) && named.names(
                        table.segment(s, spaces.layout(s).index(address)), spaces.layout(s).sectorInSegment(address))) {
                    try {
                        bodies[s].addEntry(bucket, slot);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        // Run on the writer's thread, as the engine does, nothing changes the index during the copy.
        boolean exact = index.unchangedSince(changesBefore);
        long entries = 0;
        long refused = 0;
        long bytes = 0;
        long nextSegmentSequence = table.nextSequence();
        for (int s = 0; s < count; s++) {
            bodies[s].finish(new CheckpointHeader(instance, s, sequence, startedMillis, nextFileId,
                    files.count(), files.bytes().length, table.segmentsIn(s), spaces.layout(s).segmentBytes(),
                    index.buckets(), bodies[s].entries, nextSegmentSequence, bodies[s].crc(), exact));
            areaSequences[s][area[s]] = sequence;
            entries += bodies[s].entries;
            refused += bodies[s].refused;
            bytes += bodies[s].writer.bytes();
        }
        int freed = table.checkpointDurable(named.epoch());
        return new Result(sequence, entries, refused, bytes, freed, startedMillis);
    }

    /** The sequences each space's areas hold now (0 = none), for tests and the statistics. */
    public synchronized long[][] areaSequences() {
        long[][] copy = new long[areaSequences.length][];
        for (int s = 0; s < copy.length; s++) {
            copy[s] = areaSequences[s].clone();
        }
        return copy;
    }

    /** One space's body on its way to its area, with its checksum. */
    private final class SpaceBody {
        final BodyWriter writer;
        final CRC32C crc = new CRC32C();
        final ByteBuffer entry = ByteBuffer.allocate(CheckpointHeader.ENTRY_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        final int space;
        long entries;
        long refused;

        SpaceBody(StorageDriver driver, CheckpointAreas areas, int area, int space) throws IOException {
            this.writer = new BodyWriter(driver, areas.start(area), areas.bodyCapacityBytes(),
                    driver.path() + " checkpoint area " + CheckpointAreas.name(area));
            this.space = space;
        }

        void appendSegments(long[] named) throws IOException {
            ByteBuffer sequences = ByteBuffer.allocate(table.segmentsIn(space) * CheckpointHeader.SEGMENT_BYTES)
                    .order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < table.segmentsIn(space); i++) {
                sequences.putLong(named[table.segment(space, i)]);
            }
            append(sequences.flip());
        }

        void append(ByteBuffer bytes) throws IOException {
            crc.update(bytes.duplicate());
            writer.append(bytes);
        }

        /** Adds one slot; an entry the area has no room for is left out and counted. */
        void addEntry(long bucket, long slot) throws IOException {
            if (!writer.fits(CheckpointHeader.ENTRY_BYTES)) {
                refused++;
                return;
            }
            entry.clear();
            entry.putInt((int) bucket).putLong(slot).flip();
            append(entry);
            entries++;
        }

        int crc() {
            return (int) crc.getValue();
        }

        void finish(CheckpointHeader header) throws IOException {
            writer.finish(header.encode());
        }
    }
}

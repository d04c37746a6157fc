package io.flashchunk.cache.checkpoint;

import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.cache.files.FileTableCodec;
import io.flashchunk.cache.format.CheckpointAreas;
import io.flashchunk.cache.format.CheckpointFormatException;
import io.flashchunk.cache.format.CheckpointHeader;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.index.ChunkLocations;
import io.flashchunk.cache.reclaim.ReclaimOrder;
import io.flashchunk.cache.space.AddressSpace;
import io.flashchunk.cache.space.AddressSpaces;
import io.flashchunk.cache.space.DeviceStart;
import io.flashchunk.cache.space.SegmentTable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the engine back from its checkpoints at start, before the writer or any reader
 * runs: every address space from the newest checkpoint that all of them hold and that passes every
 * check (each space its own newest that does, when they share none), its slots streamed straight into
 * the index and its segments made durable again in the segment table and the reclaim order. There is
 * no table of recovered entries and no background mover: when this returns, the cache is as the
 * checkpoints left it.
 *
 * <p>What is trusted: a header only through its checksum, instance, space and geometry; a body only
 * through its checksum (slots restored before a bad checksum is found are taken out again); a slot
 * only if it points into a segment its checkpoint names. Even so a slot is only a hint: every read
 * checks the key and segment sequence in the record on flash. That is also why falling back to the
 * older area is safe although its segments may have been reused since: their records carry another
 * sequence and are refused.
 *
 * <p>Segment sequences continue above every sequence a checkpoint names; the engine then takes them
 * above what the devices' superblocks reserved ({@link DeviceStart#reserveSequences}), so a segment
 * opened after a crash never gets the sequence of a use before it, checkpointed or not.
 */
public final class Recovery {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);
    private static final int PIECE_BYTES = 4 << 20;

    /**
     * What recovery found: per space the sequences its areas hold (0 = none valid, or newer than the
     * one the space was restored from: the next checkpoint goes there), the files the
     * checkpoints name (an id two checkpoints disagree on is left out), the next file id to give,
     * the slots restored and left out, every reason a checkpoint area or file was not used (each
     * also logged as a warning), and per space the area recovered from (0 = A, 1 = B, -1 = none).
     */
    public static final class Outcome {
        private final long[][] areaSequences;
        private final Map<Integer, FileIdentity> files;
        private final int nextFileId;
        private final long restoredEntries;
        private final long skippedEntries;
        private final int restoredSegments;
        private final long highestSequenceSeen;
        private final List<RecoveryProblem> problems;
        private final int[] loadedAreas;
        private final long checkpointMillis;

        /** @param checkpointMillis when the newest checkpoint restored from started (0: none) */
        public Outcome(long[][] areaSequences, Map<Integer, FileIdentity> files, int nextFileId, long restoredEntries,
                       long skippedEntries, int restoredSegments, long highestSequenceSeen,
                       List<RecoveryProblem> problems, int[] loadedAreas, long checkpointMillis) {
            this.checkpointMillis = checkpointMillis;
            this.areaSequences = areaSequences;
            this.files = files;
            this.nextFileId = nextFileId;
            this.restoredEntries = restoredEntries;
            this.skippedEntries = skippedEntries;
            this.restoredSegments = restoredSegments;
            this.highestSequenceSeen = highestSequenceSeen;
            this.problems = problems;
            this.loadedAreas = loadedAreas;
        }

        public long checkpointMillis() {
            return checkpointMillis;
        }

        public long[][] areaSequences() {
            return areaSequences;
        }

        public Map<Integer, FileIdentity> files() {
            return files;
        }

        public int nextFileId() {
            return nextFileId;
        }

        public long restoredEntries() {
            return restoredEntries;
        }

        public long skippedEntries() {
            return skippedEntries;
        }

        public int restoredSegments() {
            return restoredSegments;
        }

        public long highestSequenceSeen() {
            return highestSequenceSeen;
        }

        public List<RecoveryProblem> problems() {
            return problems;
        }

        public int[] loadedAreas() {
            return loadedAreas;
        }

        @Override
        public String toString() {
            return "Outcome[areaSequences=" + areaSequences + ", files=" + files + ", nextFileId=" + nextFileId
                    + ", restoredEntries=" + restoredEntries + ", skippedEntries=" + skippedEntries
                    + ", restoredSegments=" + restoredSegments + ", highestSequenceSeen=" + highestSequenceSeen
                    + ", problems=" + problems + ", loadedAreas=" + loadedAreas + ", checkpointMillis=" + checkpointMillis
                    + "]";
        }
    }

    /** Logs a reason something on the devices is not used, and keeps it for the outcome. */
    private static void problem(List<RecoveryProblem> problems, int space, int area, RecoveryProblem.Kind kind,
                                String message) {
        LOG.warn("flash cache: {}", message);
        problems.add(new RecoveryProblem(space, area, kind, message));
    }

    private Recovery() {
    }

    /**
     * Restores into {@code index}, {@code table} and {@code order}, all empty and not yet in use,
     * what the devices' checkpoints of cache {@code instance} hold.
     */
    public static Outcome recover(AddressSpaces spaces, UUID instance, ChunkIndex index, SegmentTable table,
                                  ReclaimOrder order) {
        return recover(spaces, instance, index, table, order, PIECE_BYTES);
    }

    /** As above, each body read in pieces of {@code pieceBytes} (tests: entries split across pieces). */
    static Outcome recover(AddressSpaces addressSpaces, UUID instance, ChunkIndex index, SegmentTable table,
                           ReclaimOrder order, int pieceBytes) {
        int spaces = table.spaces();
        if (addressSpaces.count() != spaces) {
            throw new IllegalArgumentException(addressSpaces.count() + " address spaces for a table of " + spaces);
        }
        long[][] areaSequences = new long[spaces][2];
        long[] named = new long[table.segments()];
        Map<Integer, FileIdentity> files = new HashMap<>();
        Set<Integer> disputed = new HashSet<>();
        int nextFileId = 1;
        long nextSegmentSequence = 1;
        long restored = 0;
        long skipped = 0;
        long checkpointMillis = 0;
        long highestSeen = 0;
        List<RecoveryProblem> problems = new ArrayList<>();
        int[] loadedAreas = new int[spaces];
        Arrays.fill(loadedAreas, -1);
        SpaceRecovery[] recoveries = new SpaceRecovery[spaces];
        for (int s = 0; s < spaces; s++) {
            recoveries[s] = new SpaceRecovery(addressSpaces.get(s), instance, table, index, pieceBytes, problems);
            recoveries[s].readHeaders(areaSequences[s]);
            highestSeen = Math.max(highestSeen, recoveries[s].highestSeen);
        }
        SpaceRecovery.Loaded[] loaded = loadOneCheckpoint(recoveries, areaSequences);
        if (loaded == null) {
            loaded = loadEachNewest(recoveries, areaSequences);
        }
        for (int s = 0; s < spaces; s++) {
            if (loaded[s] == null) {
                continue;
            }
            loadedAreas[s] = loaded[s].area();
            // A newer checkpoint this space was not restored from describes flash as this run will not
            // leave it: the next checkpoint overwrites it, and keeps the one restored from.
            int other = 1 - loaded[s].area();
            if (areaSequences[s][other] > loaded[s].header().sequence()) {
                areaSequences[s][other] = 0;
            }
            for (int i = 0; i < loaded[s].segmentSequences().length; i++) {
                named[table.segment(s, i)] = loaded[s].segmentSequences()[i];
            }
            for (Map.Entry<Integer, FileIdentity> file : loaded[s].files().entrySet()) {
                FileIdentity before = files.putIfAbsent(file.getKey(), file.getValue());
                if (before != null && !before.equals(file.getValue())) {
                    disputed.add(file.getKey());
                }
            }
            nextFileId = Math.max(nextFileId, loaded[s].header().nextFileId());
            nextSegmentSequence = Math.max(nextSegmentSequence, loaded[s].header().nextSegmentSequence());
            restored += loaded[s].restored();
            checkpointMillis = Math.max(checkpointMillis, loaded[s].header().timestampMillis());
            skipped += loaded[s].skipped();
        }
        for (int id : disputed) {
            problem(problems, -1, -1, RecoveryProblem.Kind.FILE_ID_DISPUTED, "checkpoints disagree on file id " + id + "; its cached chunks are not used");
            files.remove(id);
        }
        table.restoreDurable(named);
        List<Integer> durable = new ArrayList<>();
        for (int segment = 0; segment < named.length; segment++) {
            if (named[segment] > 0) {
                durable.add(segment);
            }
        }
        durable.sort(Comparator.comparingLong(segment -> named[segment]));
        durable.forEach(order::written);
        table.continueSequencesFrom(nextSegmentSequence);
        return new Outcome(areaSequences, Map.copyOf(files), nextFileId, restored, skipped, durable.size(),
                highestSeen, List.copyOf(problems), loadedAreas, checkpointMillis);
    }

    /**
     * Every space from one checkpoint, the newest that every space holds whole: one moment of the
     * index, so each slot goes back into the bucket it was copied from and no chunk comes back twice
     * or is crowded out by another moment's entries (a crash between two spaces' headers leaves one
     * space a checkpoint newer than the other's). A body that fails takes its area out and the next
     * common checkpoint is tried; null when the spaces share none that loads.
     */
    private static SpaceRecovery.Loaded[] loadOneCheckpoint(SpaceRecovery[] recoveries, long[][] areaSequences) {
        for (long common = newestCommon(areaSequences); common != 0; common = newestCommon(areaSequences)) {
            SpaceRecovery.Loaded[] loaded = new SpaceRecovery.Loaded[recoveries.length];
            int s = 0;
            while (s < recoveries.length) {
                int area = areaSequences[s][0] == common ? 0 : 1;
                loaded[s] = recoveries[s].loadArea(area, areaSequences[s], common);
                if (loaded[s] == null) {
                    break;
                }
                s++;
            }
            if (s == recoveries.length) {
                return loaded;
            }
            for (int done = 0; done < s; done++) {
                recoveries[done].unload(); // the failed space took its own entries out already
            }
        }
        return null;
    }

    /** The highest checkpoint sequence that some area of every space holds, 0 when there is none. */
    private static long newestCommon(long[][] areaSequences) {
        long best = 0;
        for (long candidate : areaSequences[0]) {
            boolean everywhere = candidate > best;
            for (int s = 1; s < areaSequences.length && everywhere; s++) {
                everywhere = areaSequences[s][0] == candidate || areaSequences[s][1] == candidate;
            }
            if (everywhere) {
                best = candidate;
            }
        }
        return best;
    }

    /**
     * Each space from its newest checkpoint that loads, when the spaces share none (an area damaged):
     * later spaces go back with a duplicate check, since another checkpoint's entries already in the
     * index may hold their keys elsewhere, and a chunk may find both its buckets taken.
     */
    private static SpaceRecovery.Loaded[] loadEachNewest(SpaceRecovery[] recoveries, long[][] areaSequences) {
        SpaceRecovery.Loaded[] loaded = new SpaceRecovery.Loaded[recoveries.length];
        // The checkpoint the spaces restored so far came from (0: none yet). An exact copy is one
        // snapshot of the index: it goes back without a duplicate check only among spaces of that one.
        long restoredSequence = 0;
        for (int s = 0; s < recoveries.length; s++) {
            long[] sequences = areaSequences[s];
            int newer = sequences[0] >= sequences[1] ? 0 : 1;
            for (int area : new int[] {newer, 1 - newer}) {
                if (loaded[s] == null && sequences[area] != 0) {
                    loaded[s] = recoveries[s].loadArea(area, sequences, restoredSequence);
                }
            }
            if (loaded[s] != null && restoredSequence == 0) {
                restoredSequence = loaded[s].header().sequence();
            }
        }
        return loaded;
    }

    /**
     * One checkpoint area's header as recovery judges it: the header when it is a checkpoint of cache
     * {@code instance}, space {@code space}, with this space's geometry; else null, and the problem
     * (null for an empty area: a new cache has them, and a crash during a checkpoint leaves one).
     */
    public static final class AreaHeader {
        private final CheckpointHeader header;
        private final String problem;

        public AreaHeader(CheckpointHeader header, String problem) {
            this.header = header;
            this.problem = problem;
        }

        public CheckpointHeader header() {
            return header;
        }

        public String problem() {
            return problem;
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof AreaHeader)) {
                return false;
            }
            AreaHeader other = (AreaHeader) o;
            return Objects.equals(header, other.header)
                    && Objects.equals(problem, other.problem);
        }

        @Override
        public int hashCode() {
            return Objects.hash(header, problem);
        }

        @Override
        public String toString() {
            return "AreaHeader[header=" + header + ", problem=" + problem + "]";
        }
    }

    /** Reads and judges the header of {@code area} (0 = A, 1 = B) of a space: recovery's rule, also the checkpoint tool's. */
    public static AreaHeader readHeader(AddressSpace addressSpace, UUID instance, int area) {
        StorageDriver driver = addressSpace.driver();
        CheckpointAreas areas = addressSpace.areas();
        SegmentLayout layout = addressSpace.layout();
        int space = addressSpace.number();
        String where = areaName(driver.path(), area);
        try {
            ByteBuffer block = DeviceStart.readBlock(driver, areas.start(area));
            CheckpointHeader header = CheckpointHeader.decode(block, areas.bodyCapacityBytes(), where);
            String mismatch = !header.instance().equals(instance) ? "belongs to cache instance " + header.instance()
                    : header.spaceIndex() != space ? "was written for address space " + header.spaceIndex()
                    : header.segments() != layout.segments() || header.segmentBytes() != layout.segmentBytes()
                    ? "names " + header.segments() + " segments of " + header.segmentBytes() + " bytes, the space has "
                    + layout.segments() + " of " + layout.segmentBytes() : null;
            return mismatch == null ? new AreaHeader(header, null) : new AreaHeader(null, where + ": it " + mismatch);
        } catch (java.io.IOException e) {
            return new AreaHeader(null, where + ": " + e.getMessage());
        } catch (CheckpointFormatException e) {
            return new AreaHeader(null, e.emptyArea() ? null : e.getMessage());
        }
    }

    /** "PATH checkpoint area A": how recovery's messages name an area. */
    static String areaName(String path, int area) {
        return path + " checkpoint area " + CheckpointAreas.name(area);
    }

    /** One space: its two headers, and the body of the newest one that checks out. */
    private static final class SpaceRecovery {
        static final class Loaded {
            private final int area;
            private final CheckpointHeader header;
            private final Map<Integer, FileIdentity> files;
            private final long[] segmentSequences;
            private final long restored;
            private final long skipped;

            Loaded(int area, CheckpointHeader header, Map<Integer, FileIdentity> files, long[] segmentSequences,
                   long restored, long skipped) {
                this.area = area;
                this.header = header;
                this.files = files;
                this.segmentSequences = segmentSequences;
                this.restored = restored;
                this.skipped = skipped;
            }

            public int area() {
                return area;
            }

            public CheckpointHeader header() {
                return header;
            }

            public Map<Integer, FileIdentity> files() {
                return files;
            }

            public long[] segmentSequences() {
                return segmentSequences;
            }

            public long restored() {
                return restored;
            }

            public long skipped() {
                return skipped;
            }

            @Override
            public String toString() {
                return "Loaded[area=" + area + ", header=" + header + ", files=" + files
                        + ", segmentSequences=" + segmentSequences + ", restored=" + restored
                        + ", skipped=" + skipped + "]";
            }
        }

        private final AddressSpace addressSpace;
        private final StorageDriver driver;
        private final CheckpointAreas areas;
        private final SegmentLayout layout;
        private final UUID instance;
        private final int space;
        private final SegmentTable table;
        private final ChunkIndex index;
        private final ChunkLocations locations;
        private final int pieceBytes;
        private final List<RecoveryProblem> problems;
        private final CheckpointHeader[] headers = new CheckpointHeader[2];
        /** The highest sequence of a header that decoded, whether or not its body was then valid. */
        long highestSeen;

        SpaceRecovery(AddressSpace addressSpace, UUID instance, SegmentTable table, ChunkIndex index, int pieceBytes,
                      List<RecoveryProblem> problems) {
            this.pieceBytes = pieceBytes;
            this.problems = problems;
            this.addressSpace = addressSpace;
            this.driver = addressSpace.driver();
            this.areas = addressSpace.areas();
            this.layout = addressSpace.layout();
            this.instance = instance;
            this.space = addressSpace.number();
            this.table = table;
            this.index = index;
            this.locations = new ChunkLocations(index);
        }

        String where(int area) {
            return areaName(driver.path(), area);
        }

        /**
         * Reads both areas' headers, recording each area's sequence (0 = none valid). Two areas of one
         * sequence are both ignored: sequences are never reused, so neither can be trusted over the other.
         */
        void readHeaders(long[] sequences) {
            for (int area = 0; area < 2; area++) {
                headers[area] = header(area);
                sequences[area] = headers[area] == null ? 0 : headers[area].sequence();
                highestSeen = Math.max(highestSeen, sequences[area]);
            }
            if (sequences[0] != 0 && sequences[0] == sequences[1]) {
                problem(problems, space, -1, RecoveryProblem.Kind.BOTH_AREAS_ONE_SEQUENCE, "ignoring both checkpoint areas of " + driver.path() + ": each holds checkpoint "
                        + sequences[0] + "; this space starts empty");
                sequences[0] = 0;
                sequences[1] = 0;
                headers[0] = null;
                headers[1] = null;
            }
        }

        /**
         * Loads the body of {@code area} into the index, or returns null (its sequence set to 0 and the
         * reason kept) when it fails. {@code restoredSequence}: the checkpoint other spaces were
         * restored from, 0 when none was.
         */
        Loaded loadArea(int area, long[] sequences, long restoredSequence) {
            try {
                Loaded loaded = body(area, headers[area], restoredSequence);
                LOG.info("flash cache: {} recovers checkpoint {} ({} entries restored, {} left out, {} files)",
                        driver.path(), headers[area].sequence(), loaded.restored(), loaded.skipped(),
                        loaded.files().size());
                return loaded;
            } catch (CheckpointFormatException e) {
                sequences[area] = 0;
                headers[area] = null;
                problem(problems, space, area, RecoveryProblem.Kind.AREA_BODY, "ignoring " + e.getMessage());
                return null;
            }
        }

        /** Takes this space's entries out of the index again. */
        void unload() {
            SegmentLayout inSpace = layout;
            locations.droppedWhere(address -> RecordAddress.space(address) == space && inSpace.contains(address));
        }

        /** The area's header if it is a checkpoint of this cache and space with this geometry, else null (logged). */
        CheckpointHeader header(int area) {
            AreaHeader found = readHeader(addressSpace, instance, area);
            if (found.problem() != null) {
                problem(problems, space, area, RecoveryProblem.Kind.AREA_HEADER, "ignoring " + found.problem());
            }
            return found.header();
        }

        /** Streams the body: segments, then files, then slots into the index; all or nothing. */
        Loaded body(int area, CheckpointHeader header, long restoredSequence) throws CheckpointFormatException {
            String where = where(area);
            long[] segmentSequences = new long[header.segments()];
            byte[] fileTable = new byte[(int) header.fileTableBytes()];
            long filesFrom = header.segmentsBytes();
            long entriesFrom = filesFrom + header.fileTableBytes();
            boolean sameTable = header.buckets() == index.buckets();
            // Another checkpoint's entries already in the index may hold this one's keys elsewhere.
            boolean exact = header.exactCopy() && (restoredSequence == 0 || restoredSequence == header.sequence());
            CRC32C crc = new CRC32C();
            ByteBuffer carry = ByteBuffer.allocate(CheckpointHeader.ENTRY_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            long[] counts = new long[2]; // restored, skipped
            try {
                BodyReader.read(driver.device(), areas.start(area) + 1, header.bodyBytes(), pieceBytes,
                        driver.timeoutNanos(), (piece, offset) -> {
                            crc.update(piece.duplicate());
                            ByteBuffer in = piece.duplicate().order(ByteOrder.LITTLE_ENDIAN);
                            for (long at = offset; in.hasRemaining(); at = offset + in.position()) {
                                if (at < filesFrom) {
                                    if (at % CheckpointHeader.SEGMENT_BYTES != 0 || in.remaining() < 8) {
                                        throw new CheckpointFormatException(where + ": body pieces split a segment record");
                                    }
                                    segmentSequences[(int) (at / CheckpointHeader.SEGMENT_BYTES)] =
                                            checkedSequence(in.getLong(), header, where);
                                } else if (at < entriesFrom) {
                                    int n = (int) Math.min(in.remaining(), entriesFrom - at);
                                    in.get(fileTable, (int) (at - filesFrom), n);
                                } else if (carry.position() > 0 || in.remaining() < CheckpointHeader.ENTRY_BYTES) {
                                    // An entry split between two pieces: gathered byte by byte.
                                    carry.put(in.get());
                                    if (!carry.hasRemaining()) {
                                        restore(carry.flip(), header, segmentSequences, sameTable, exact, counts, where);
                                        carry.clear();
                                    }
                                } else {
                                    restore(in, header, segmentSequences, sameTable, exact, counts, where);
                                }
                            }
                        });
                if ((int) crc.getValue() != header.bodyCrc()) {
                    throw new CheckpointFormatException(where + ": body checksum mismatch (torn or corrupt checkpoint)");
                }
                Map<Integer, FileIdentity> files = FileTableCodec.decode(ByteBuffer.wrap(fileTable), header.fileCount(),
                        header.nextFileId(), where);
                if (!sameTable) {
                    problem(problems, space, area, RecoveryProblem.Kind.INDEX_RESIZED, where + " was written for an index of " + header.buckets() + " buckets, this "
                            + "one has " + index.buckets() + " (capacity changed): its " + header.entryCount()
                            + " entries are not restored");
                    return new Loaded(area, header, files, new long[header.segments()], 0, header.entryCount());
                }
                return new Loaded(area, header, files, segmentSequences, counts[0], counts[1]);
            } catch (CheckpointFormatException | RuntimeException e) {
                unload();
                if (e instanceof CheckpointFormatException) {
                    throw (CheckpointFormatException) e;
                }
                throw new CheckpointFormatException(where + ": " + e);
            }
        }

        private static long checkedSequence(long sequence, CheckpointHeader header, String where)
                throws CheckpointFormatException {
            if (sequence < 0 || sequence >= header.nextSegmentSequence()) {
                throw new CheckpointFormatException(where + ": names segment sequence " + sequence + ", outside 0.."
                        + (header.nextSegmentSequence() - 1));
            }
            return sequence;
        }

        /** One 12-byte entry: restored when it points into a named segment of this space, else counted as left out. */
        private void restore(ByteBuffer entry, CheckpointHeader header, long[] segmentSequences, boolean sameTable,
                             boolean exact, long[] counts, String where) throws CheckpointFormatException {
            long bucket = Integer.toUnsignedLong(entry.getInt());
            long slot = entry.getLong();
            long address = ChunkIndex.address(slot);
            if (bucket >= header.buckets() || slot == 0 || RecordAddress.space(address) != space
                    || !layout.contains(address)) {
                throw new CheckpointFormatException(where + ": entry in bucket " + bucket + " points at "
                        + RecordAddress.describe(address) + ", outside this space's segments or the table");
            }
            if (sameTable && segmentSequences[layout.index(address)] != 0
                    && locations.restore(bucket, slot, exact)) {
                counts[0]++;
            } else {
                counts[1]++;
            }
        }
    }
}

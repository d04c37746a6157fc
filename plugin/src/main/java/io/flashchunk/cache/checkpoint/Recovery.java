package io.flashchunk.cache.checkpoint;

import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.cache.files.FileTableCodec;
import io.flashchunk.cache.format.CheckpointAreas;
import io.flashchunk.cache.format.CheckpointFormatException;
import io.flashchunk.cache.format.CheckpointHeader;
import io.flashchunk.cache.format.DeltaHeader;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.format.SegmentSummary;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.index.ChunkLocations;
import io.flashchunk.cache.reclaim.ReclaimOrder;
import io.flashchunk.cache.space.AddressSpace;
import io.flashchunk.cache.space.AddressSpaces;
import io.flashchunk.cache.space.DeviceStart;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
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
        private final int[] loadedDeltas;
        /** Per space, the chain this run's deltas go on from; null when the first checkpoint is a full one. */
        private final RecoveredChain[] chains;
        /** The invalidations the deltas read name (three longs each), which the next deltas name again. */
        private final long[] forgotten;

        /**
         * @param checkpointMillis when the newest checkpoint restored from started (0: none)
         * @param loadedDeltas     per space, the position of the delta restored from after its full
         *                         checkpoint (0: the full checkpoint alone, or none)
         */
        public Outcome(long[][] areaSequences, Map<Integer, FileIdentity> files, int nextFileId, long restoredEntries,
                       long skippedEntries, int restoredSegments, long highestSequenceSeen,
                       List<RecoveryProblem> problems, int[] loadedAreas, long checkpointMillis, int[] loadedDeltas) {
            this(areaSequences, files, nextFileId, restoredEntries, skippedEntries, restoredSegments, highestSequenceSeen,
                    problems, loadedAreas, checkpointMillis, loadedDeltas, null, new long[0]);
        }

        Outcome(long[][] areaSequences, Map<Integer, FileIdentity> files, int nextFileId, long restoredEntries,
                long skippedEntries, int restoredSegments, long highestSequenceSeen, List<RecoveryProblem> problems,
                int[] loadedAreas, long checkpointMillis, int[] loadedDeltas, RecoveredChain[] chains, long[] forgotten) {
            this.chains = chains;
            this.forgotten = forgotten;
            this.loadedDeltas = loadedDeltas;
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

        /** Per space, the position of the delta restored from (0: its full checkpoint alone, or none). */
        public int[] loadedDeltas() {
            return loadedDeltas;
        }

        /**
         * Whether this run's first checkpoint can be a delta after the checkpoints recovered from:
         * every space came back from one full checkpoint (and the deltas after it) with nothing refused.
         */
        public boolean continuesChain() {
            return chains != null;
        }

        RecoveredChain[] chains() {
            return chains;
        }

        long[] forgotten() {
            return forgotten;
        }

        @Override
        public String toString() {
            return "Outcome[areaSequences=" + areaSequences + ", files=" + files + ", nextFileId=" + nextFileId
                    + ", restoredEntries=" + restoredEntries + ", skippedEntries=" + skippedEntries
                    + ", restoredSegments=" + restoredSegments + ", highestSequenceSeen=" + highestSequenceSeen
                    + ", problems=" + problems + ", loadedAreas=" + Arrays.toString(loadedAreas) + ", checkpointMillis="
                    + checkpointMillis + ", loadedDeltas=" + Arrays.toString(loadedDeltas) + ", continuesChain="
                    + continuesChain() + "]";
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
        int[] loadedDeltas = new int[spaces];
        SpaceRecovery[] recoveries = new SpaceRecovery[spaces];
        for (int s = 0; s < spaces; s++) {
            recoveries[s] = new SpaceRecovery(addressSpaces.get(s), instance, table, index, pieceBytes, problems);
            recoveries[s].readHeaders();
            highestSeen = Math.max(highestSeen, recoveries[s].highestSeen);
        }
        SpaceRecovery.Loaded[] loaded = loadOneCheckpoint(recoveries);
        boolean oneBase = loaded != null && oneBase(loaded);
        if (loaded == null) {
            loaded = loadEachNewest(recoveries);
        }
        // A space loaded from another space's checkpoints (its device moved in the list), or re-indexed,
        // cannot take deltas after them: its next checkpoint is a full one, as every space's then is.
        for (int s = 0; s < spaces; s++) {
            oneBase &= loaded[s] == null || loaded[s].baseSpace == s && !loaded[s].reindexed;
        }
        long[] forgotten = fromDeltas(recoveries, loaded);
        for (int s = 0; s < spaces; s++) {
            areaSequences[s] = recoveries[s].newestInEachArea();
            if (loaded[s] == null) {
                continue;
            }
            loadedAreas[s] = loaded[s].area();
            loadedDeltas[s] = loaded[s].deltaPosition;
            // Deltas after the one restored from, and a newer checkpoint in the other area, describe
            // flash as this run will not leave it: the next checkpoint goes over the other area's, and
            // keeps the one restored from.
            areaSequences[s][loaded[s].area()] = loaded[s].sequence();
            int other = 1 - loaded[s].area();
            if (areaSequences[s][other] > loaded[s].sequence()) {
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
            nextFileId = Math.max(nextFileId, loaded[s].nextFileId());
            nextSegmentSequence = Math.max(nextSegmentSequence, loaded[s].nextSegmentSequence());
            checkpointMillis = Math.max(checkpointMillis, loaded[s].timestampMillis());
            skipped += loaded[s].skipped();
        }
        for (int id : disputed) {
            problem(problems, -1, -1, RecoveryProblem.Kind.FILE_ID_DISPUTED, "checkpoints disagree on file id " + id + "; its cached chunks are not used");
            files.remove(id);
        }
        // Each key once: a key put back from two summaries, or from the full checkpoint and a summary, counts once.
        restored = index.entries();
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
        RecoveredChain[] chains = null;
        if (oneBase && problems.isEmpty()) {
            chains = new RecoveredChain[spaces];
            for (int s = 0; s < spaces; s++) {
                chains[s] = loaded[s].chain();
            }
        }
        return new Outcome(areaSequences, Map.copyOf(files), nextFileId, restored, skipped, durable.size(),
                highestSeen, List.copyOf(problems), loadedAreas, checkpointMillis, loadedDeltas, chains,
                chains == null ? new long[0] : forgotten);
    }

    /** Whether every space came back from full checkpoints of one sequence: one copy of the index. */
    private static boolean oneBase(SpaceRecovery.Loaded[] loaded) {
        for (SpaceRecovery.Loaded space : loaded) {
            if (space == null || space.baseSequence != loaded[0].baseSequence) {
                return false;
            }
        }
        return true;
    }

    /**
     * Every space from one checkpoint, the newest that every space holds whole: one moment of the
     * index, so each slot goes back into the bucket it was copied from and no chunk comes back twice
     * or is crowded out by another moment's entries (a crash between two spaces' headers leaves one
     * space a checkpoint newer than the other's). A checkpoint that fails is taken out (a full one with
     * the deltas after it) and the next common one is tried; null when the spaces share none that loads.
     */
    private static SpaceRecovery.Loaded[] loadOneCheckpoint(SpaceRecovery[] all) {
        // A space that holds none (a device formatted into the cache at this start) has nothing to share.
        List<Integer> holding = new ArrayList<>();
        for (int s = 0; s < all.length; s++) {
            if (!all[s].candidates.isEmpty()) {
                holding.add(s);
            }
        }
        if (holding.isEmpty()) {
            return null;
        }
        SpaceRecovery[] recoveries = holding.stream().map(s -> all[s]).toArray(SpaceRecovery[]::new);
        for (long common = newestCommon(recoveries); common != 0; common = newestCommon(recoveries)) {
            SpaceRecovery.Loaded[] loaded = new SpaceRecovery.Loaded[recoveries.length];
            // Full checkpoints of one sequence are one copy of the index: put back without a duplicate check.
            long base = recoveries[0].holding(common).base.sequence();
            for (SpaceRecovery recovery : recoveries) {
                base = recovery.holding(common).base.sequence() == base ? base : -1;
            }
            int s = 0;
            while (s < recoveries.length) {
                loaded[s] = recoveries[s].load(recoveries[s].holding(common), base);
                if (loaded[s] == null) {
                    break;
                }
                s++;
            }
            if (s == recoveries.length) {
                SpaceRecovery.Loaded[] bySpace = new SpaceRecovery.Loaded[all.length];
                for (int i = 0; i < holding.size(); i++) {
                    bySpace[holding.get(i)] = loaded[i];
                }
                return bySpace;
            }
            for (int done = 0; done < s; done++) {
                recoveries[done].unload(); // the failed space took its own entries out already
            }
        }
        return null;
    }

    /** The highest checkpoint sequence that every space holds (in full or as a delta), 0 when there is none. */
    private static long newestCommon(SpaceRecovery[] recoveries) {
        long best = 0;
        for (SpaceRecovery.Candidate candidate : recoveries[0].candidates) {
            boolean everywhere = candidate.sequence() > best;
            for (int s = 1; s < recoveries.length && everywhere; s++) {
                everywhere = recoveries[s].holding(candidate.sequence()) != null;
            }
            if (everywhere) {
                best = candidate.sequence();
            }
        }
        return best;
    }

    /**
     * Each space from its newest checkpoint that loads, when the spaces share none (an area damaged):
     * later spaces go back with a duplicate check, since another checkpoint's entries already in the
     * index may hold their keys elsewhere, and a chunk may find both its buckets taken.
     */
    private static SpaceRecovery.Loaded[] loadEachNewest(SpaceRecovery[] recoveries) {
        SpaceRecovery.Loaded[] loaded = new SpaceRecovery.Loaded[recoveries.length];
        // The full checkpoint the spaces restored so far came from (0: none yet). An exact copy is one
        // snapshot of the index: it goes back without a duplicate check only among spaces of that one.
        long restoredBase = 0;
        for (int s = 0; s < recoveries.length; s++) {
            for (SpaceRecovery.Candidate candidate = recoveries[s].newest(); loaded[s] == null && candidate != null;
                    candidate = recoveries[s].newest()) {
                loaded[s] = recoveries[s].load(candidate, restoredBase == 0 ? candidate.base.sequence() : restoredBase);
                if (loaded[s] != null && restoredBase == 0) {
                    restoredBase = candidate.base.sequence();
                }
            }
        }
        return loaded;
    }

    /**
     * The chunks the loaded deltas name beyond their full checkpoints, once every space's full
     * checkpoint is back: read from the summaries of the changed segments of every space in one
     * order, the order they were appended in (one segment is open at a time, and each opened gets a
     * higher sequence), so a key appended twice ends at its later record; then each forgotten key
     * left at a record from before its invalidation is taken out, in every space. Returns those
     * forgotten keys (three longs each), or none when no delta was read.
     */
    private static long[] fromDeltas(SpaceRecovery[] recoveries, SpaceRecovery.Loaded[] loaded) {
        List<long[]> uses = new ArrayList<>(); // sequence, space, change
        for (int s = 0; s < loaded.length; s++) {
            if (loaded[s] != null && loaded[s].delta != null) {
                for (int i = 0; i < loaded[s].delta.sequences.length; i++) {
                    if (loaded[s].delta.sequences[i] != 0) {
                        uses.add(new long[] {loaded[s].delta.sequences[i], s, i});
                    }
                }
            }
        }
        uses.sort(Comparator.comparingLong(use -> use[0]));
        for (long[] use : uses) {
            int s = (int) use[1];
            loaded[s].restored += recoveries[s].fromSummary(loaded[s], (int) use[2]);
        }
        // Every delta names every invalidation since its full checkpoint; the newest loaded names the
        // most, and a record from before an invalidation is stale whichever space restored it.
        SpaceRecovery.Loaded newest = null;
        for (SpaceRecovery.Loaded space : loaded) {
            if (space != null && space.delta != null && (newest == null || space.sequence() > newest.sequence())) {
                newest = space;
            }
        }
        if (newest == null) {
            return new long[0];
        }
        long[] forgotten = newest.delta.forgotten;
        for (int i = 0; i < forgotten.length; i += 3) {
            for (int s = 0; s < loaded.length; s++) {
                if (loaded[s] != null
                        && recoveries[s].forgetIfOlder(forgotten[i], forgotten[i + 1], forgotten[i + 2],
                        loaded[s].segmentSequences)) {
                    loaded[s].restored--;
                }
            }
        }
        return forgotten;
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
        String where = areaName(driver.path(), area);
        try {
            ByteBuffer block = DeviceStart.readBlock(driver, areas.start(area));
            CheckpointHeader header = CheckpointHeader.decode(block, areas.bodyCapacityBytes(), where);
            // The space index is not checked: it says which space the entries were written for, and a
            // device moved in the list since keeps them (restore moves them to its place).
            String mismatch = !header.instance().equals(instance) ? "belongs to cache instance " + header.instance()
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

    /** One space: the checkpoints its two areas hold, and the newest of them that checks out. */
    private static final class SpaceRecovery {
        /** A checkpoint an area holds: its full checkpoint, or a delta after it at {@code deltaBlock}. */
        static final class Candidate {
            final int area;
            final CheckpointHeader base;
            final DeltaHeader delta;
            final long deltaBlock;

            Candidate(int area, CheckpointHeader base, DeltaHeader delta, long deltaBlock) {
                this.area = area;
                this.base = base;
                this.delta = delta;
                this.deltaBlock = deltaBlock;
            }

            long sequence() {
                return delta == null ? base.sequence() : delta.sequence();
            }
        }

        static final class Loaded {
            private final int area;
            private final long sequence;
            private final long timestampMillis;
            private final int nextFileId;
            private final long nextSegmentSequence;
            private final Map<Integer, FileIdentity> files;
            private final long[] segmentSequences;
            /** Slots restored so far: the full checkpoint's, then those from the delta's summaries. */
            private long restored;
            private final long skipped;
            /** The delta whose changed segments' chunks are yet to come back from their summaries, or null. */
            private final DeltaBody delta;
            private final int deltaPosition;
            private final String where;
            /** The full checkpoint's sequence and entries, and the uses it names per segment. */
            private final long baseSequence;
            /** The address space the full checkpoint was written for (another when the device moved). */
            private final int baseSpace;
            /** Whether the full checkpoint's entries were re-indexed (written for an index of another size). */
            private boolean reindexed;
            private final long baseEntries;
            private final long[] baseSegmentSequences;
            /** The block after the last checkpoint of the chain read, and the last delta's body bytes (0: none). */
            private final long nextBlock;
            private final long deltaBytes;

            Loaded(int area, long sequence, long timestampMillis, int nextFileId, long nextSegmentSequence,
                   Map<Integer, FileIdentity> files, long[] segmentSequences, long restored, long skipped,
                   DeltaBody delta, int deltaPosition, String where, CheckpointHeader base,
                   long[] baseSegmentSequences, long nextBlock, long deltaBytes) {
                this.baseSequence = base.sequence();
                this.baseSpace = base.spaceIndex();
                this.baseEntries = base.entryCount();
                this.baseSegmentSequences = baseSegmentSequences;
                this.nextBlock = nextBlock;
                this.deltaBytes = deltaBytes;
                this.delta = delta;
                this.deltaPosition = deltaPosition;
                this.where = where;
                this.area = area;
                this.sequence = sequence;
                this.timestampMillis = timestampMillis;
                this.nextFileId = nextFileId;
                this.nextSegmentSequence = nextSegmentSequence;
                this.files = files;
                this.segmentSequences = segmentSequences;
                this.restored = restored;
                this.skipped = skipped;
            }

            public int area() {
                return area;
            }

            public long sequence() {
                return sequence;
            }

            public long timestampMillis() {
                return timestampMillis;
            }

            public int nextFileId() {
                return nextFileId;
            }

            public long nextSegmentSequence() {
                return nextSegmentSequence;
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

            /** The chain this space was recovered from, as this run's deltas go on from it. */
            RecoveredChain chain() {
                int segments = segmentSequences.length;
                int[] baseSectors = new int[segments];
                int[] namedSectors = new int[segments];
                Arrays.fill(baseSectors, DeltaHeader.ALL_SECTORS);
                Arrays.fill(namedSectors, DeltaHeader.ALL_SECTORS);
                if (delta != null) {
                    for (int c = 0; c < delta.segments.length; c++) {
                        int segment = delta.segments[c];
                        if (delta.sequences[c] == baseSegmentSequences[segment]) {
                            baseSectors[segment] = delta.from[c];
                        }
                        namedSectors[segment] = delta.sequences[c] == 0 ? 0 : delta.to[c];
                    }
                }
                return new RecoveredChain(area, baseSequence, baseEntries, deltaPosition, nextBlock,
                        baseSegmentSequences, baseSectors, segmentSequences.clone(), namedSectors, deltaBytes);
            }

            @Override
            public String toString() {
                return "Loaded[area=" + area + ", sequence=" + sequence + ", files=" + files.size() + ", restored="
                        + restored + ", skipped=" + skipped + "]";
            }
        }

        /** What a delta's body says: its changes by segment, the chunks forgotten, and the whole file table. */
        private static final class DeltaBody {
            /** Per segment of the space, the change naming it, or -1. */
            final int[] changeOf;
            final long[] sequences;
            final int[] segments;
            final int[] from;
            final int[] to;
            /** Keys, and the place (segment use, sector) their records are newer than their invalidation from, three longs each. */
            final long[] forgotten;
            /** The records the delta lists for segments named in part: change, sector and key, in order. */
            final int[] aheadChanges;
            final int[] aheadSectors;
            final long[] aheadKeys;
            final Map<Integer, FileIdentity> files;

            DeltaBody(int[] changeOf, long[] sequences, int[] segments, int[] from, int[] to, long[] forgotten,
                      int[] aheadChanges, int[] aheadSectors, long[] aheadKeys, Map<Integer, FileIdentity> files) {
                this.aheadChanges = aheadChanges;
                this.aheadSectors = aheadSectors;
                this.aheadKeys = aheadKeys;
                this.changeOf = changeOf;
                this.sequences = sequences;
                this.segments = segments;
                this.from = from;
                this.to = to;
                this.forgotten = forgotten;
                this.files = files;
            }

            /**
             * Whether the full checkpoint's entry into {@code segment}, whose use it names as
             * {@code baseSequence}, still holds: the delta leaves the segment as it was, or names more
             * of the same use.
             */
            boolean keepsBaseEntries(int segment, long baseSequence) {
                int change = changeOf[segment];
                return change < 0 || from[change] > 0 && sequences[change] == baseSequence;
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
        /** The checkpoints not yet found wanting, newest first. */
        final List<Candidate> candidates = new ArrayList<>();
        /** While a checkpoint of another index size is read: per segment, its slots gathered to re-index. */
        private int[] gatheredInSegment;
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
         * Reads both areas' headers and the deltas after each full checkpoint. Two areas of one
         * sequence are both ignored: sequences are never reused, so neither can be trusted over the other.
         */
        void readHeaders() {
            CheckpointHeader[] headers = new CheckpointHeader[2];
            for (int area = 0; area < 2; area++) {
                headers[area] = header(area);
                if (headers[area] != null) {
                    highestSeen = Math.max(highestSeen, headers[area].sequence());
                }
            }
            if (headers[0] != null && headers[1] != null && headers[0].sequence() == headers[1].sequence()) {
                problem(problems, space, -1, RecoveryProblem.Kind.BOTH_AREAS_ONE_SEQUENCE, "ignoring both checkpoint areas of " + driver.path() + ": each holds checkpoint "
                        + headers[0].sequence() + "; this space starts empty");
                return;
            }
            for (int area = 0; area < 2; area++) {
                if (headers[area] != null) {
                    candidates.add(new Candidate(area, headers[area], null, 0));
                    for (DeltaAt delta : deltas(addressSpace, instance, area, headers[area])) {
                        candidates.add(new Candidate(area, headers[area], delta.header(), delta.block()));
                        highestSeen = Math.max(highestSeen, delta.header().sequence());
                    }
                }
            }
            candidates.sort(Comparator.comparingLong(Candidate::sequence).reversed());
        }

        /** Per area, the newest checkpoint it still offers (0 = none). */
        long[] newestInEachArea() {
            long[] newest = new long[2];
            for (Candidate candidate : candidates) {
                newest[candidate.area] = Math.max(newest[candidate.area], candidate.sequence());
            }
            return newest;
        }

        /** The checkpoint of {@code sequence} this space holds, or null. */
        Candidate holding(long sequence) {
            for (Candidate candidate : candidates) {
                if (candidate.sequence() == sequence) {
                    return candidate;
                }
            }
            return null;
        }

        Candidate newest() {
            return candidates.isEmpty() ? null : candidates.get(0);
        }

        /**
         * Loads {@code candidate} into the index, or returns null (the candidate taken out, with the
         * deltas after it when its full checkpoint failed, and the reason kept). Its full checkpoint's
         * slots go back without a duplicate check when the index holds only slots of the same copy:
         * when {@code restoredBase}, the full checkpoint every space restores, is its own.
         */
        Loaded load(Candidate candidate, long restoredBase) {
            String where = where(candidate.area);
            DeltaBody delta = null;
            if (candidate.delta != null) {
                try {
                    delta = deltaBody(candidate);
                } catch (CheckpointFormatException | RuntimeException e) {
                    candidates.remove(candidate);
                    problem(problems, space, candidate.area, RecoveryProblem.Kind.DELTA_BODY, "ignoring "
                            + (e instanceof CheckpointFormatException ? e.getMessage()
                            : where(candidate.area) + " delta " + candidate.delta.position() + ": " + e));
                    return null;
                }
            }
            Loaded loaded;
            try {
                loaded = body(candidate, delta, restoredBase);
            } catch (CheckpointFormatException e) {
                candidates.removeIf(c -> c.area == candidate.area && c.base.sequence() == candidate.base.sequence());
                problem(problems, space, candidate.area, RecoveryProblem.Kind.AREA_BODY, "ignoring " + e.getMessage());
                return null;
            }
            LOG.info("flash cache: {} recovers checkpoint {}{} ({} entries restored, {} left out, {} files)",
                    driver.path(), loaded.sequence(), candidate.delta == null ? "" : " (delta "
                    + candidate.delta.position() + " after " + candidate.base.sequence() + ", in " + where + ")",
                    loaded.restored(), loaded.skipped(), loaded.files().size());
            return loaded;
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

        /** Reads and checks a delta's body: its changes, each a segment of this space named at most once, and its file table. */
        DeltaBody deltaBody(Candidate candidate) throws CheckpointFormatException {
            DeltaHeader header = candidate.delta;
            String where = where(candidate.area) + " delta " + header.position();
            byte[] body = new byte[(int) header.bodyBytes()];
            CRC32C crc = new CRC32C();
            BodyReader.read(driver.device(), candidate.deltaBlock + 1, header.bodyBytes(), pieceBytes,
                    driver.timeoutNanos(), (piece, offset) -> {
                        crc.update(piece.duplicate());
                        piece.duplicate().get(body, (int) offset, piece.remaining());
                    });
            if ((int) crc.getValue() != header.bodyCrc()) {
                throw new CheckpointFormatException(where + ": body checksum mismatch (torn or corrupt checkpoint delta)");
            }
            ByteBuffer in = ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN);
            int count = (int) header.changes();
            int[] changeOf = new int[header.segments()];
            Arrays.fill(changeOf, -1);
            long[] sequences = new long[count];
            int[] segments = new int[count];
            int[] from = new int[count];
            int[] to = new int[count];
            for (int i = 0; i < count; i++) {
                sequences[i] = in.getLong();
                segments[i] = in.getInt();
                from[i] = in.getInt();
                to[i] = in.getInt();
                if (segments[i] < 0 || segments[i] >= header.segments() || changeOf[segments[i]] >= 0
                        || sequences[i] < 0 || sequences[i] >= header.nextSegmentSequence() || from[i] < 0
                        || (sequences[i] != 0 && to[i] <= from[i])) {
                    throw new CheckpointFormatException(where + ": change " + i + " names segment " + segments[i]
                            + " (of " + header.segments() + "), sequence " + sequences[i] + " (below "
                            + header.nextSegmentSequence() + ") and sectors " + from[i] + " to " + to[i]
                            + ": not a change of this space, or one named twice");
                }
                changeOf[segments[i]] = i;
            }
            long[] forgotten = new long[(int) (3 * header.forgotten())];
            for (int i = 0; i < forgotten.length; i += 3) {
                forgotten[i] = in.getLong();
                forgotten[i + 1] = in.getLong();
                forgotten[i + 2] = Integer.toUnsignedLong(in.getInt());
            }
            int ahead = (int) header.ahead();
            int[] aheadChanges = new int[ahead];
            int[] aheadSectors = new int[ahead];
            long[] aheadKeys = new long[ahead];
            for (int r = 0; r < ahead; r++) {
                int segment = in.getInt();
                aheadSectors[r] = in.getInt();
                aheadKeys[r] = in.getLong();
                int change = segment >= 0 && segment < header.segments() ? changeOf[segment] : -1;
                if (change < 0 || sequences[change] == 0 || to[change] == DeltaHeader.ALL_SECTORS
                        || aheadSectors[r] < from[change] || aheadSectors[r] >= to[change]) {
                    throw new CheckpointFormatException(where + ": listed record " + r + " at sector " + aheadSectors[r]
                            + " of segment " + segment + " is not in the new part of a segment the delta names in part");
                }
                aheadChanges[r] = change;
            }
            Map<Integer, FileIdentity> files = FileTableCodec.decode(in.slice().order(ByteOrder.LITTLE_ENDIAN),
                    header.fileCount(), header.nextFileId(), where);
            return new DeltaBody(changeOf, sequences, segments, from, to, forgotten, aheadChanges, aheadSectors,
                    aheadKeys, files);
        }

        /**
         * Streams the full checkpoint's body: segments, then files, then slots into the index; then,
         * for a delta, the changed segments' chunks from their summaries. All or nothing, but for a
         * summary that does not check (that segment's chunks are left out).
         */
        Loaded body(Candidate candidate, DeltaBody delta, long restoredBase) throws CheckpointFormatException {
            int area = candidate.area;
            CheckpointHeader header = candidate.base;
            String where = where(area);
            long[] segmentSequences = new long[header.segments()];
            byte[] fileTable = new byte[(int) header.fileTableBytes()];
            long filesFrom = header.segmentsBytes();
            long entriesFrom = filesFrom + header.fileTableBytes();
            boolean sameTable = header.buckets() == index.buckets();
            // Written for an index of another size (the devices changed): a slot holds a tag of its
            // key, not the key, so the slots are gathered in a table of their own size, then each is
            // put back by the key its segment's summary names at its place.
            ChunkIndex gathered = sameTable ? null : reindexTable(header, area, where);
            ChunkLocations into = sameTable ? locations : gathered == null ? null : new ChunkLocations(gathered);
            gatheredInSegment = gathered == null ? null : new int[header.segments()];
            // Another checkpoint's entries already in the index may hold this one's keys elsewhere.
            boolean exact = header.exactCopy() && (restoredBase == header.sequence() || !sameTable);
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
                                        restore(carry.flip(), header, segmentSequences, delta, into, exact,
                                                counts, where);
                                        carry.clear();
                                    }
                                } else {
                                    restore(in, header, segmentSequences, delta, into, exact, counts, where);
                                }
                            }
                        });
                if ((int) crc.getValue() != header.bodyCrc()) {
                    throw new CheckpointFormatException(where + ": body checksum mismatch (torn or corrupt checkpoint)");
                }
                Map<Integer, FileIdentity> files = delta != null ? delta.files
                        : FileTableCodec.decode(ByteBuffer.wrap(fileTable), header.fileCount(), header.nextFileId(), where);
                long sequence = candidate.sequence();
                long timestamp = delta == null ? header.timestampMillis() : candidate.delta.timestampMillis();
                int nextFileId = delta == null ? header.nextFileId() : candidate.delta.nextFileId();
                long nextSegmentSequence = delta == null ? header.nextSegmentSequence()
                        : candidate.delta.nextSegmentSequence();
                if (into == null) {
                    return new Loaded(area, sequence, timestamp, nextFileId, nextSegmentSequence, files,
                            new long[header.segments()], 0, header.entryCount(), null, 0, where, header,
                            new long[header.segments()], 0, 0);
                }
                if (!sameTable) {
                    counts[0] = reindex(gathered, segmentSequences, area, where);
                    counts[1] = header.entryCount() - counts[0];
                    LOG.info("flash cache: {} was written for an index of {} buckets, this one has {} (the devices "
                            + "changed): its entries go back by their keys in their segments' summaries ({} restored)",
                            where, header.buckets(), index.buckets(), counts[0]);
                }
                long[] baseSegmentSequences = segmentSequences.clone();
                long nextBlock = candidate.delta == null
                        ? areas.start(area) + 1 + (header.bodyBytes() + BlockDevice.BLOCK_SIZE - 1) / BlockDevice.BLOCK_SIZE
                        : candidate.deltaBlock + candidate.delta.blocks();
                if (delta != null) {
                    for (int i = 0; i < delta.segments.length; i++) {
                        segmentSequences[delta.segments[i]] = delta.sequences[i];
                    }
                }
                Loaded loaded = new Loaded(area, sequence, timestamp, nextFileId, nextSegmentSequence, files,
                        segmentSequences, counts[0], counts[1], delta, delta == null ? 0 : candidate.delta.position(),
                        delta == null ? where : where + " delta " + candidate.delta.position(), header,
                        baseSegmentSequences, nextBlock, delta == null ? 0 : candidate.delta.bodyBytes());
                loaded.reindexed = !sameTable;
                return loaded;
            } catch (CheckpointFormatException | RuntimeException e) {
                unload();
                if (e instanceof CheckpointFormatException) {
                    throw (CheckpointFormatException) e;
                }
                throw new CheckpointFormatException(where + ": " + e);
            }
        }

        /**
         * Puts back the chunks of change {@code change} of the loaded delta: the records new since the
         * full checkpoint, from its segment's summary (a segment written whole), or from the delta's
         * own list (one named in part). A summary that does not check leaves them out (kept as a
         * problem). Returns how many went back.
         */
        long fromSummary(Loaded loaded, int change) {
            DeltaBody delta = loaded.delta;
            int segment = delta.segments[change];
            if (delta.to[change] != DeltaHeader.ALL_SECTORS) {
                // Named in part: its summary is written again as it fills, so the delta lists the records.
                long restored = 0;
                for (int r = 0; r < delta.aheadChanges.length; r++) {
                    if (delta.aheadChanges[r] == change) {
                        locations.placed(delta.aheadKeys[r], layout.address(space, segment, delta.aheadSectors[r]));
                        restored++;
                    }
                }
                return restored;
            }
            SegmentSummary summary;
            try {
                summary = addressSpace.readSummary(segment, delta.sequences[change]);
            } catch (IOException | RecordMismatchException e) {
                problem(problems, space, loaded.area, RecoveryProblem.Kind.SEGMENT_SUMMARY, loaded.where + " names segment "
                        + segment + " (use " + delta.sequences[change] + "), whose summary cannot be used ("
                        + e.getMessage() + "): its chunks are not restored");
                return 0;
            }
            long restored = 0;
            for (int r = 0; r < summary.count(); r++) {
                if (summary.sectors()[r] >= delta.from[change] && summary.sectors()[r] < delta.to[change]) {
                    locations.placed(summary.keys()[r], layout.address(space, segment, summary.sectors()[r]));
                    restored++;
                }
            }
            return restored;
        }

        /**
         * Takes {@code key} out if it points at a record of this space appended before the place
         * ({@code use}, {@code sector}) of its invalidation in the order of appends; returns whether it went.
         */
        boolean forgetIfOlder(long key, long use, long sector, long[] segmentSequences) {
            long address = index.find(key);
            if (address == RecordAddress.NONE || RecordAddress.space(address) != space || !layout.contains(address)) {
                return false;
            }
            long recordUse = segmentSequences[layout.index(address)];
            boolean before = recordUse < use || recordUse == use && layout.sectorInSegment(address) < sector;
            return before && locations.dropped(key, address);
        }

        /**
         * A table of {@code header}'s size to gather its slots in, or null (a problem kept) when the
         * heap cannot hold one beside the index: then its entries are not restored.
         */
        private ChunkIndex reindexTable(CheckpointHeader header, int area, String where) {
            long bytes = header.buckets() * ChunkIndex.BUCKET_SLOTS * Long.BYTES;
            Runtime runtime = Runtime.getRuntime();
            long free = runtime.maxMemory() - (runtime.totalMemory() - runtime.freeMemory());
            String why = null;
            if (header.buckets() < 2 || header.buckets() > 1L << 32) {
                why = "a table of " + header.buckets() + " buckets, which no index has (2.." + (1L << 32) + ")";
            } else if (bytes > free / 2) {
                why = (bytes >> 20) + " MiB of heap, " + (free >> 20) + " MiB free";
            } else {
                try {
                    return ChunkIndex.withBuckets(header.buckets());
                } catch (OutOfMemoryError e) {
                    why = (bytes >> 20) + " MiB of heap: " + e.getMessage();
                }
            }
            problem(problems, space, area, RecoveryProblem.Kind.INDEX_RESIZED, where + " was written for an index of "
                    + header.buckets() + " buckets, this one has " + index.buckets() + " (the devices changed); "
                    + "re-indexing its " + header.entryCount() + " entries takes " + why + ": they are not restored");
            return null;
        }

        /**
         * Puts back each slot gathered in {@code written} by its key: for every segment the full
         * checkpoint names, the records its summary lists that {@code written} holds at their place.
         * A segment whose summary does not check loses its chunks (a problem kept). Returns how many went back.
         */
        private long reindex(ChunkIndex written, long[] segmentSequences, int area, String where) {
            long restored = 0;
            for (int segment = 0; segment < segmentSequences.length; segment++) {
                if (gatheredInSegment[segment] == 0) {
                    continue; // none of its entries holds (a segment the delta after says changed, or none named)
                }
                SegmentSummary summary;
                try {
                    summary = addressSpace.readSummary(segment, segmentSequences[segment]);
                } catch (IOException | RecordMismatchException e) {
                    problem(problems, space, area, RecoveryProblem.Kind.SEGMENT_SUMMARY, where + " names segment "
                            + segment + " (use " + segmentSequences[segment] + "), whose summary cannot be used ("
                            + e.getMessage() + "): its chunks are not re-indexed");
                    continue;
                }
                for (int r = 0; r < summary.count(); r++) {
                    long key = summary.keys()[r];
                    long address = layout.address(space, segment, summary.sectors()[r]);
                    if (written.find(key) == address) {
                        locations.placed(key, address);
                        restored++;
                    }
                }
            }
            return restored;
        }

        private static long checkedSequence(long sequence, CheckpointHeader header, String where)
                throws CheckpointFormatException {
            if (sequence < 0 || sequence >= header.nextSegmentSequence()) {
                throw new CheckpointFormatException(where + ": names segment sequence " + sequence + ", outside 0.."
                        + (header.nextSegmentSequence() - 1));
            }
            return sequence;
        }

        /**
         * One 12-byte entry: restored when it points into a named segment of this space whose use a
         * delta (if any) keeps, else counted as left out.
         */
        private void restore(ByteBuffer entry, CheckpointHeader header, long[] segmentSequences, DeltaBody delta,
                             ChunkLocations into, boolean exact, long[] counts, String where)
                throws CheckpointFormatException {
            long bucket = Integer.toUnsignedLong(entry.getInt());
            long written = entry.getLong();
            if (written == 0 || RecordAddress.space(ChunkIndex.address(written)) != header.spaceIndex()) {
                throw new CheckpointFormatException(where + ": entry in bucket " + bucket + " points at "
                        + RecordAddress.describe(ChunkIndex.address(written)) + ", not into address space "
                        + header.spaceIndex() + " its header names");
            }
            // A device moved in the list: its entries go to its place now.
            long slot = ChunkIndex.inSpace(written, space);
            long address = ChunkIndex.address(slot);
            if (bucket >= header.buckets() || !layout.contains(address)) {
                throw new CheckpointFormatException(where + ": entry in bucket " + bucket + " points at "
                        + RecordAddress.describe(address) + ", outside this space's segments or the table");
            }
            int segment = layout.index(address);
            if (into != null && segmentSequences[segment] != 0
                    && (delta == null || delta.keepsBaseEntries(segment, segmentSequences[segment]))
                    && into.restore(bucket, slot, exact)) {
                if (into != locations) {
                    gatheredInSegment[segment]++;
                }
                counts[0]++;
            } else {
                counts[1]++;
            }
        }
    }

    /** A delta found after a full checkpoint: its header, and the block it is at. */
    public static final class DeltaAt {
        private final DeltaHeader header;
        private final long block;

        public DeltaAt(DeltaHeader header, long block) {
            this.header = header;
            this.block = block;
        }

        public DeltaHeader header() {
            return header;
        }

        public long block() {
            return block;
        }

        @Override
        public String toString() {
            return "DeltaAt[header=" + header + ", block=" + block + "]";
        }
    }

    /**
     * The deltas written after full checkpoint {@code base} in {@code area} of a space, in order: the
     * first right after the base's body, each next one right after the one before. The chain ends at
     * the first block that is not a delta of this cache, space, geometry and base at the next
     * position (a delta torn by a crash, or what an earlier use of the area left), or at
     * {@link DeltaHeader#MAX_DELTAS}: recovery's rule, also the checkpoint tool's.
     */
    public static List<DeltaAt> deltas(AddressSpace addressSpace, UUID instance, int area, CheckpointHeader base) {
        StorageDriver driver = addressSpace.driver();
        CheckpointAreas areas = addressSpace.areas();
        long end = areas.start(area) + 1 + areas.bodyCapacityBytes() / BlockDevice.BLOCK_SIZE;
        long block = areas.start(area) + 1 + (base.bodyBytes() + BlockDevice.BLOCK_SIZE - 1) / BlockDevice.BLOCK_SIZE;
        List<DeltaAt> found = new ArrayList<>();
        long previous = base.sequence();
        while (block < end && found.size() < DeltaHeader.MAX_DELTAS) {
            String where = areaName(driver.path(), area) + " delta " + (found.size() + 1);
            DeltaHeader delta;
            try {
                delta = DeltaHeader.decode(DeviceStart.readBlock(driver, block),
                        (end - block - 1) * BlockDevice.BLOCK_SIZE, where);
            } catch (java.io.IOException | CheckpointFormatException e) {
                break;
            }
            if (!delta.instance().equals(instance) || delta.spaceIndex() != base.spaceIndex()
                    || delta.segments() != base.segments() || delta.segmentBytes() != base.segmentBytes()
                    || delta.baseSequence() != base.sequence() || delta.position() != found.size() + 1
                    || delta.sequence() <= previous) {
                break;
            }
            found.add(new DeltaAt(delta, block));
            previous = delta.sequence();
            block += delta.blocks();
        }
        return found;
    }
}

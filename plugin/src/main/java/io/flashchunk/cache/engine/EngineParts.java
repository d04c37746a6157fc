package io.flashchunk.cache.engine;

import io.flashchunk.buffer.AlignedBufferPool;
import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.checkpoint.CheckpointSchedule;
import io.flashchunk.cache.checkpoint.Checkpointer;
import io.flashchunk.cache.checkpoint.Recovery;
import io.flashchunk.cache.files.NamedFiles;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.read.FlashReadPolicy;
import io.flashchunk.cache.read.SegmentReader;
import io.flashchunk.cache.reclaim.FifoReclaimOrder;
import io.flashchunk.cache.reclaim.ReclaimOrder;
import io.flashchunk.cache.reclaim.TinyLfuReclaimOrder;
import io.flashchunk.cache.space.AddressSpaces;
import io.flashchunk.cache.space.SegmentDiscards;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.cache.space.SpaceReads;
import io.flashchunk.cache.write.SegmentBuffer;
import io.flashchunk.cache.write.SegmentWriter;
import io.flashchunk.cache.write.Writer;
import io.flashchunk.cache.write.WriterPolicy;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * The engine's parts over its address spaces, wired one way: {@link CacheEngine} builds them here,
 * and so do the tests' fixture and {@link CacheInspection} (read-only, {@link #readOnly}), so that
 * tests and the checkpoint tool run the parts as the engine puts them together. What differs between
 * uses is given ({@link Spec}): the index's capacity, the reclaim order, the writer's policy and how
 * hits read flash. The address spaces come from whoever started the devices.
 */
public final class EngineParts {
    /**
     * What differs between uses.
     */
    public static final class Spec {
        private final long indexEntries;
        private final long indexBuckets;
        private final boolean tinyLfu;
        private final WriterPolicy policy;
        private final AlignedBufferPool readBuffers;
        private final FlashReadPolicy readPolicy;

        /**
         * @param indexEntries the chunks the index is sized for
         * @param indexBuckets the index's buckets exactly, as a checkpoint names them; 0: sized for {@code indexEntries}
         * @param tinyLfu      Caffeine's W-TinyLFU over segments (the engine's), or oldest first
         * @param policy       admission's victims, reinsertion, the reclaim batch, space loads, live keys
         * @param readBuffers  the pool hits read flash into
         * @param readPolicy   how hits read flash
         */
        public Spec(long indexEntries, long indexBuckets, boolean tinyLfu, WriterPolicy policy,
                    AlignedBufferPool readBuffers, FlashReadPolicy readPolicy) {
            this.indexEntries = indexEntries;
            this.indexBuckets = indexBuckets;
            this.tinyLfu = tinyLfu;
            this.policy = policy;
            this.readBuffers = readBuffers;
            this.readPolicy = readPolicy;
        }

        public long indexEntries() {
            return indexEntries;
        }

        public long indexBuckets() {
            return indexBuckets;
        }

        public boolean tinyLfu() {
            return tinyLfu;
        }

        public WriterPolicy policy() {
            return policy;
        }

        public AlignedBufferPool readBuffers() {
            return readBuffers;
        }

        public FlashReadPolicy readPolicy() {
            return readPolicy;
        }

        /** A cache that runs: the index sized for {@code indexEntries}. */
        public Spec(long indexEntries, boolean tinyLfu, WriterPolicy policy, AlignedBufferPool readBuffers,
                    FlashReadPolicy readPolicy) {
            this(indexEntries, 0, tinyLfu, policy, readBuffers, readPolicy);
        }

        /**
         * Parts to look at a cache's devices and never write ({@link CacheInspection}): the index its
         * checkpoints were written for; oldest first as the order, the cheapest, since nothing is
         * ever reclaimed.
         */
        public static Spec inspection(long indexBuckets, AlignedBufferPool readBuffers, FlashReadPolicy readPolicy) {
            return new Spec(0, indexBuckets, false, WriterPolicy.NONE, readBuffers, readPolicy);
        }

        @Override
        public String toString() {
            return "Spec[indexEntries=" + indexEntries + ", indexBuckets=" + indexBuckets + ", tinyLfu=" + tinyLfu
                    + ", policy=" + policy + ", readBuffers=" + readBuffers + ", readPolicy=" + readPolicy + "]";
        }
    }

    public final AddressSpaces spaces;
    public final SegmentTable table;
    public final ChunkIndex index;
    public final ReclaimOrder order;
    /** The writer's appends and reclaims; null in {@link #readOnly} parts. */
    public final SegmentWriter segmentWriter;
    public final SegmentReader reader;

    private EngineParts(AddressSpaces spaces, Spec spec, boolean writes) {
        this.spaces = spaces;
        int[] segments = spaces.segmentsPerSpace();
        int all = java.util.Arrays.stream(segments).sum();
        this.table = new SegmentTable(segments);
        this.index = spec.indexBuckets() > 0 ? ChunkIndex.withBuckets(spec.indexBuckets())
                : new ChunkIndex(spec.indexEntries());
        // Room for all but the open and sealed segments and a batch of doomed ones: past it, the order
        // gives up a segment as each is written, and the writer dooms it (it serves until reused).
        this.order = spec.tinyLfu()
                ? new TinyLfuReclaimOrder(all, Math.max(1, all - 2 - spec.policy().reclaimBatch()))
                : new FifoReclaimOrder();
        SegmentBuffer[] buffers = new SegmentBuffer[0];
        if (writes) {
            int segmentBytes = spaces.segmentBytes();
            int window = SegmentBuffer.windowFor(segmentBytes);
            buffers = new SegmentBuffer[] {new SegmentBuffer(AlignedBuffers.allocate(window), segmentBytes),
                new SegmentBuffer(AlignedBuffers.allocate(window), segmentBytes)};
        }
        this.segmentWriter = writes ? new SegmentWriter(table, spaces, index, order, buffers, spec.policy()) : null;
        SpaceReads load = spec.policy().load() != null ? spec.policy().load() : new SpaceReads(spaces.count());
        this.reader = new SegmentReader(table, spaces, index, order, buffers, spec.readBuffers(), spec.readPolicy(),
                load);
    }

    /**
     * Segments doomed between two checkpoints at most: a checkpoint releases all doomed before it and
     * writes the whole index, so not one per segment; at most an eighth of the segments, at least one.
     * (The cache simulator models the engine with it.)
     */
    public static int reclaimBatch(int segments, int checkpointEverySegments) {
        return Math.max(1, Math.min(checkpointEverySegments, segments / 8));
    }

    /** The parts over {@code spaces}. */
    static EngineParts wire(AddressSpaces spaces, Spec spec) {
        return new EngineParts(spaces, spec, true);
    }

    /**
     * The parts that read a cache and never write it: no {@link #segmentWriter} (null) and no segment
     * buffers, so hits are read from flash only.
     */
    public static EngineParts readOnly(AddressSpaces spaces, Spec spec) {
        return new EngineParts(spaces, spec, false);
    }

    /**
     * From now on each segment freed in a space marked in {@code perSpace} is discarded before reuse,
     * and so is each free now; returns the thread that does it. After recovery, before the writer starts.
     */
    public SegmentDiscards discardFreedSegments(boolean[] perSpace) {
        requireWrites("discards");
        return new SegmentDiscards(table, spaces, perSpace);
    }

    /** Recovers these (unused) parts from their spaces' checkpoints of cache {@code instance}. */
    public Recovery.Outcome recover(UUID instance) {
        Recovery.Outcome outcome = Recovery.recover(spaces, instance, index, table, order);
        if (segmentWriter != null) {
            segmentWriter.recovered();
        }
        return outcome;
    }

    /**
     * A checkpointer of these parts for a cache whose areas hold {@code areaSequences} (per space,
     * A and B; 0 = none), the highest sequence any of them carried being {@code highestSequenceSeen}.
     */
    public Checkpointer checkpointer(UUID instance, long[][] areaSequences, long highestSequenceSeen,
                                     LongSupplier clockMillis) {
        requireWrites("checkpointer");
        return new Checkpointer(table, index, spaces, instance, areaSequences, highestSequenceSeen, clockMillis);
    }

    /**
     * The checkpointer of a run that {@code recovered} started: its first checkpoint a delta after the
     * checkpoints recovery read, when they allow it ({@link Recovery.Outcome#continuesChain()}).
     */
    public Checkpointer checkpointer(UUID instance, Recovery.Outcome recovered, LongSupplier clockMillis) {
        requireWrites("checkpointer");
        return new Checkpointer(table, index, spaces, instance, recovered, clockMillis);
    }

    /** The writer's steps over these parts, checkpointing with {@code checkpointer} as {@code schedule} says. */
    public Writer writer(Checkpointer checkpointer, CheckpointSchedule schedule, NamedFiles files,
                         LongSupplier clockMillis) {
        requireWrites("writer");
        return new Writer(segmentWriter, checkpointer, schedule, files, clockMillis);
    }

    /** Read-only parts never write: no part that writes is made from them. */
    private void requireWrites(String part) {
        if (segmentWriter == null) {
            throw new IllegalStateException("read-only engine parts have no " + part);
        }
    }
}

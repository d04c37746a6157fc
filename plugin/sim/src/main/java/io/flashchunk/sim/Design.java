package io.flashchunk.sim;

import io.flashchunk.cache.engine.EngineParts;
import io.flashchunk.cache.reclaim.FifoReclaimOrder;
import io.flashchunk.cache.reclaim.ReclaimOrder;
import io.flashchunk.cache.reclaim.TinyLfuReclaimOrder;
import io.flashchunk.cache.CacheConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/** A cache design the simulator compares, built for a flash size. */
record Design(String name, LongFunction<SimulatedCache> build) {
    /** Keys the second-miss admission remembers, as a share of the chunks flash holds. */
    static final double GHOST_SHARE = 0.05;
    /** Reads, counted by the frequency sketch, that a chunk needs lately to be admitted. */
    static final int ADMIT_FREQUENCY = 2;
    /** The share of a reclaimed segment that chunks kept by reinsertion may fill. */
    static final double MAX_RETAINED = 0.5;
    /** A share that keeps flash bytes written per admitted byte within issue 15's 1.05. */
    static final double LOW_RETAINED = 0.045;
    /** Twice that: between the bounded and the unbounded reinsertion. */
    static final double MID_RETAINED = 0.09;

    /**
     * The per-chunk reference: W-TinyLFU over single chunks, the policy of the paper and of the engine
     * this one replaced, which the segment designs are judged against.
     */
    static final String REFERENCE = "chunk W-TinyLFU (per-chunk reference)";

    /** The per-chunk reference and the segment candidates, with {@code segmentBytes} segments of {@code chunkBytes} chunks. */
    static List<Design> all(long segmentBytes, int chunkBytes) {
        int never = Integer.MAX_VALUE;
        List<Design> designs = new ArrayList<>(List.of(
                new Design(REFERENCE, ChunkWTinyLfu::new),
                new Design("segments FIFO", b -> fifo(b, segmentBytes, never, null)),
                new Design("segments FIFO, reinsert hit chunks", b -> fifo(b, segmentBytes, 1, null)),
                new Design("segments W-TinyLFU", b -> tinyLfu(b, segmentBytes, never, null)),
                new Design("segments W-TinyLFU, reinsert hit chunks", b -> tinyLfu(b, segmentBytes, 1, null)),
                new Design("segments W-TinyLFU, reinsert hit chunks, admit on 2nd miss", b ->
                        tinyLfu(b, segmentBytes, 1, ghost(b, chunkBytes))),
                new Design("segments FIFO, admit read twice lately", b ->
                        fifo(b, segmentBytes, never, frequent(b, chunkBytes, ADMIT_FREQUENCY))),
                new Design("segments FIFO, reinsert hit chunks, admit read twice lately", b ->
                        fifo(b, segmentBytes, 1, frequent(b, chunkBytes, ADMIT_FREQUENCY))),
                new Design("segments W-TinyLFU, admit read twice lately", b ->
                        tinyLfu(b, segmentBytes, never, frequent(b, chunkBytes, ADMIT_FREQUENCY))),
                new Design("segments W-TinyLFU, reinsert hit chunks, admit read twice lately", b ->
                        tinyLfu(b, segmentBytes, 1, frequent(b, chunkBytes, ADMIT_FREQUENCY))),
                new Design("segments W-TinyLFU, reinsert most-hit chunks up to 4.5%, admit read twice lately", b ->
                        tinyLfu(b, segmentBytes, 1, LOW_RETAINED, frequent(b, chunkBytes, ADMIT_FREQUENCY))),
                new Design("segments W-TinyLFU, admit if read more than a victim", b ->
                        tinyLfu(b, segmentBytes, never, new VictimFrequencyAdmission(b / chunkBytes, 4))),
                new Design("segments W-TinyLFU, admit if read more than a victim (2-byte sketch)", b ->
                        tinyLfu(b, segmentBytes, never, new VictimFrequencyAdmission(b / chunkBytes, 1))),
                new Design("segments W-TinyLFU, reinsert hit chunks, admit if read more than a victim", b ->
                        tinyLfu(b, segmentBytes, 1, new VictimFrequencyAdmission(b / chunkBytes, 4))),
                new Design("segments W-TinyLFU, reinsert most-hit chunks up to 4.5%, admit if read more than a victim",
                        b -> tinyLfu(b, segmentBytes, 1, LOW_RETAINED, new VictimFrequencyAdmission(b / chunkBytes, 4))),
                new Design("segments W-TinyLFU, reinsert most-hit chunks up to 4.5%, admit if read more than a victim "
                        + "(2-byte sketch, no doorkeeper)",
                        b -> tinyLfu(b, segmentBytes, 1, LOW_RETAINED, new VictimFrequencyAdmission(b / chunkBytes, 1))),
                new Design("segments W-TinyLFU, reinsert most-hit chunks up to 4.5%, admit if read more than a victim "
                        + "(4-byte sketch)",
                        b -> tinyLfu(b, segmentBytes, 1, LOW_RETAINED, new VictimFrequencyAdmission(b / chunkBytes, 2))),
                new Design("segments W-TinyLFU, reinsert most-hit chunks up to 4.5%, admit if read more than a victim "
                        + "(2-byte sketch, 8-bit doorkeeper)", b -> tinyLfu(b, segmentBytes, 1, LOW_RETAINED,
                        new VictimFrequencyAdmission(b / chunkBytes, 1, 8))),
                new Design("segments W-TinyLFU, reinsert most-hit chunks up to 4.5%, admit if read more than a victim "
                        + "(2-byte sketch, 8-bit doorkeeper, halved every 20 reads a key: admission_sketch_counters 1)",
                        b -> tinyLfu(b, segmentBytes, 1, LOW_RETAINED, new VictimFrequencyAdmission(b / chunkBytes, 1, 8,
                                CacheConfig.DEFAULT_ADMISSION_SAMPLE_READS))),
                new Design("segments W-TinyLFU, reinsert most-hit chunks up to 4.5%, admit if read more than a victim "
                        + "(4-byte sketch, 8-bit doorkeeper, halved every 20 reads a key: the product's)",
                        b -> tinyLfu(b, segmentBytes, 1, LOW_RETAINED, new VictimFrequencyAdmission(b / chunkBytes, 2, 8,
                                CacheConfig.DEFAULT_ADMISSION_SAMPLE_READS)))));
        designs.addAll(reclaimingAsTheEngine(segmentBytes, chunkBytes));
        designs.addAll(hitsInTheSlot(segmentBytes, chunkBytes));
        designs.addAll(List.of(
                new Design("segments W-TinyLFU, reinsert most-hit chunks up to 4.5%, admit if read more than a victim "
                        + "(2-byte sketch, 8-bit doorkeeper, halved every 40 reads a key)", b -> tinyLfu(b, segmentBytes,
                        1, LOW_RETAINED, new VictimFrequencyAdmission(b / chunkBytes, 1, 8, 40))),
                new Design("segments W-TinyLFU, reinsert most-hit chunks up to 4.5%, admit if read more than a victim "
                        + "(2-byte sketch, 4-bit doorkeeper)", b -> tinyLfu(b, segmentBytes, 1, LOW_RETAINED,
                        new VictimFrequencyAdmission(b / chunkBytes, 1, 4))),
                new Design("segments W-TinyLFU, reinsert most-hit chunks up to 10%, admit if read more than a victim",
                        b -> tinyLfu(b, segmentBytes, 1, MID_RETAINED, new VictimFrequencyAdmission(b / chunkBytes, 4))),
                new Design("segments W-TinyLFU, reinsert chunks hit twice, admit if read more than a victim", b ->
                        tinyLfu(b, segmentBytes, 2, new VictimFrequencyAdmission(b / chunkBytes, 4)))));
        return List.copyOf(designs);
    }

    /**
     * The product's design (8-bit doorkeeper, counts halved every 20 reads a key) with each sketch,
     * reclaiming three ways: a batch reclaimed at once (as the engine did until 2026-11-25), a batch
     * doomed at once and each segment reclaimed when reused, and doomed as the order evicts, released
     * a batch at a time (the engine's).
     */
    private static List<Design> reclaimingAsTheEngine(long segmentBytes, int chunkBytes) {
        String name = "segments W-TinyLFU, reinsert most-hit chunks up to 4.5%%, admit if read more than a victim "
                + "(%d-byte sketch, 8-bit doorkeeper, halved every 20 reads a key, %s)";
        List<Design> designs = new ArrayList<>();
        for (int counters : new int[] {1, 2}) {
            LongFunction<Admission> admission = b -> new VictimFrequencyAdmission(b / chunkBytes, counters, 8,
                    CacheConfig.DEFAULT_ADMISSION_SAMPLE_READS);
            designs.add(new Design(String.format(name, 2 * counters, "reclaimed 10% at a time, as the engine did"),
                    b -> tinyLfu(b, segmentBytes, 1, LOW_RETAINED, engineBatch(b, segmentBytes), false, admission.apply(b))));
            designs.add(new Design(String.format(name, 2 * counters, "doomed 10% at a time, each reclaimed when reused"),
                    b -> tinyLfu(b, segmentBytes, 1, LOW_RETAINED, engineBatch(b, segmentBytes), true, admission.apply(b))));
            designs.add(new Design(String.format(name, 2 * counters,
                    "doomed as evicted, released 10% at a time: the engine's"),
                    b -> tinyLfuDoomedAsEvicted(b, segmentBytes, admission.apply(b))));
        }
        return designs;
    }

    /**
     * The engine's design with {@link SlotCountAdmission}: hits counted in 2 bits of the index slot, a
     * sketch of misses only, in less memory a chunk (the terabyte issue's 8 bytes a chunk). Each: the
     * sketch's bytes a cached chunk (in halves), its doorkeeper's bits a chunk, and the misses a
     * chunk between two halvings.
     */
    private static List<Design> hitsInTheSlot(long segmentBytes, int chunkBytes) {
        int[][] sizes = {{4, 8, 20}, {2, 8, 20}, {2, 4, 20}, {2, 0, 20}, {1, 4, 20}, {2, 4, 5}};
        List<Design> designs = new ArrayList<>();
        for (int[] size : sizes) {
            int halves = size[0];
            int doorkeeperBits = size[1];
            int samplePerChunk = size[2];
            double sketchBytes = halves / 2.0 + doorkeeperBits / 8.0;
            // "halved after", not "halved every": the older designs' names are filtered by that
            String name = String.format("segments W-TinyLFU, reinsert most-hit chunks up to 4.5%%, hits in the slot "
                    + "(2 bits), admit if missed more than a victim missed and hit (a sketch of misses of %.2f bytes a "
                    + "chunk, %d-bit doorkeeper, halved after %d misses a chunk: %.2f bytes a chunk besides the slot's "
                    + "bits), doomed as evicted, released 10%% at a time", halves / 2.0, doorkeeperBits, samplePerChunk,
                    sketchBytes);
            designs.add(new Design(name, b -> {
                long chunks = b / chunkBytes;
                // one counter a row per sketch key is 2 bytes: half a byte a chunk is a key every 4 chunks
                long sketchKeys = Math.max(1, chunks * halves / 4);
                double keysPerChunk = (double) sketchKeys / chunks;
                int doorkeeperPerKey = (int) Math.round(doorkeeperBits / keysPerChunk);
                int samplePerKey = (int) Math.round(samplePerChunk / keysPerChunk);
                int batch = engineBatch(b, segmentBytes);
                int segments = SegmentLog.segments(b, segmentBytes);
                ReclaimOrder order = new TinyLfuReclaimOrder(segments, Math.max(1, segments - 1 - batch));
                SegmentLog log = new SegmentLog(b, segmentBytes, order, 1, LOW_RETAINED, batch, true, true);
                return new SegmentedCache(log, new SlotCountAdmission(log, sketchKeys, doorkeeperPerKey, samplePerKey));
            }));
        }
        return designs;
    }

    private static Admission ghost(long bytes, int chunkBytes) {
        return new SecondMissAdmission((long) (GHOST_SHARE * bytes / chunkBytes));
    }

    private static Admission frequent(long bytes, int chunkBytes, int reads) {
        return new FrequencyAdmission(bytes / chunkBytes, reads);
    }

    private static SimulatedCache tinyLfu(long bytes, long segmentBytes, int reinsertHits, Admission admission) {
        return tinyLfu(bytes, segmentBytes, reinsertHits, MAX_RETAINED, admission);
    }

    private static SimulatedCache fifo(long bytes, long segmentBytes, int reinsertHits, Admission admission) {
        return new SegmentedCache(new SegmentLog(bytes, segmentBytes, new FifoReclaimOrder(), reinsertHits, MAX_RETAINED),
                admission);
    }

    private static SimulatedCache tinyLfu(long bytes, long segmentBytes, int reinsertHits, double maxRetained,
            Admission admission) {
        return tinyLfu(bytes, segmentBytes, reinsertHits, maxRetained, 1, false, admission);
    }

    private static SimulatedCache tinyLfuDoomedAsEvicted(long bytes, long segmentBytes, Admission admission) {
        int batch = engineBatch(bytes, segmentBytes);
        int segments = SegmentLog.segments(bytes, segmentBytes);
        ReclaimOrder order = new TinyLfuReclaimOrder(segments, Math.max(1, segments - 1 - batch));
        return new SegmentedCache(new SegmentLog(bytes, segmentBytes, order, 1, LOW_RETAINED, batch, true, true),
                admission);
    }

    private static SimulatedCache tinyLfu(long bytes, long segmentBytes, int reinsertHits, double maxRetained,
            int reclaimBatch, boolean doomed, Admission admission) {
        int segments = SegmentLog.segments(bytes, segmentBytes);
        ReclaimOrder order = new TinyLfuReclaimOrder(segments, segments - 1);
        return new SegmentedCache(new SegmentLog(bytes, segmentBytes, order, reinsertHits, maxRetained, reclaimBatch,
                doomed), admission);
    }

    /** The engine's reclaim batch with a checkpoint every 10% of the segments (the default). */
    static int engineBatch(long bytes, long segmentBytes) {
        int segments = SegmentLog.segments(bytes, segmentBytes);
        return EngineParts.reclaimBatch(segments, segments / 10);
    }
}

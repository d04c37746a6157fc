package io.flashchunk.cache.compact;

/**
 * The compact engine's memory per cached chunk, everything counted as {@code scripts/bench-memory.sh}
 * counts it (heap after full GCs and the segment buffers), and the largest admission sketch that keeps
 * it within {@link #BYTES_PER_CHUNK}. The fixed costs, the two segment buffers above all, weigh less
 * per chunk the larger the cache: 0.84 bytes a chunk at 10 M chunks of 16 KiB with the two 4 MiB
 * windows of 16 MiB segments ({@link SegmentBuffer#windowFor}), 0.08 at 100 M. So a cache has room
 * for a larger sketch the larger it is, and a larger sketch keeps more hits (docs/cache-simulator.md:
 * a 4-byte sketch meets issue 15's hit target where the 2-byte one does not).
 */
public final class MemoryBudget {
    /** Issue 15's budget: at most 16 bytes of memory a cached chunk. */
    public static final double BYTES_PER_CHUNK = 16;
    /**
     * Heap besides the index and the sketch that grows with the cache (segment table and reclaim order,
     * about 100 bytes a segment; the victim samples), and what does not (the file registry, classes):
     * measured 0.65-0.73 bytes a chunk at 10 M chunks and 0.24-0.25 at 100 M (with the 2- and the
     * 4-byte sketch; docs/compact-engine.md), 0.01 more since doomed segments have a table (9 bytes
     * a segment); these give 0.75 and 0.26, at or a little above.
     */
    static final double OTHER_BYTES_PER_CHUNK = 0.21;
    static final double OTHER_FIXED_BYTES = 5.4e6;
    /**
     * Left free when choosing a larger sketch, for what the benchmark does not hold: the read path's
     * idle aligned buffers (one per read in flight at the busiest moment, 128 reads of 32 KiB here).
     */
    static final double HEADROOM_BYTES = 4 << 20;
    /** Counters a row per chunk tried, largest first: 4 and 2 bytes a chunk (8 never fits beside the index). */
    private static final int[] SKETCH_COUNTERS = {2, 1};
    private static final int SEGMENT_BUFFERS = 2;

    private MemoryBudget() {
    }

    /**
     * Memory per chunk of an engine whose index holds {@code chunks}, with that sketch and doorkeeper
     * and segments of {@code segmentBytes}.
     */
    public static double bytesPerChunk(long chunks, int sketchCounters, int doorkeeperBits, int segmentBytes) {
        double fixed = OTHER_FIXED_BYTES + (double) SEGMENT_BUFFERS * SegmentBuffer.windowFor(segmentBytes);
        return (double) (CompactChunkIndex.bytesFor(chunks) + FrequencySketch.bytesFor(chunks, sketchCounters,
                doorkeeperBits)) / chunks + OTHER_BYTES_PER_CHUNK + fixed / chunks;
    }

    /** The most sketch counters a row per chunk (2 or 1) within the budget and its headroom; 1 if none fits. */
    public static int sketchCounters(long chunks, int doorkeeperBits, int segmentBytes) {
        for (int counters : SKETCH_COUNTERS) {
            if (fits(chunks, counters, doorkeeperBits, segmentBytes)) {
                return counters;
            }
        }
        return 1;
    }

    /** Whether that sketch keeps the engine within the budget with {@link #HEADROOM_BYTES} to spare. */
    static boolean fits(long chunks, int sketchCounters, int doorkeeperBits, int segmentBytes) {
        return bytesPerChunk(chunks, sketchCounters, doorkeeperBits, segmentBytes) + HEADROOM_BYTES / chunks
                <= BYTES_PER_CHUNK;
    }
}

package io.flashchunk.cache.engine;

import io.flashchunk.cache.admission.FrequencySketch;
import io.flashchunk.cache.admission.VictimAdmission;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.write.SegmentBuffer;

/**
 * The engine's memory per cached chunk, everything counted as {@code scripts/bench-memory.sh}
 * counts it (heap after full GCs and the segment buffers), estimated at or a little above what that
 * benchmark measures at 10 M and 100 M chunks (further above in small caches: 27.9 bytes a chunk at
 * 1 M against 23.2 measured), and what the default admission sketch costs. The fixed costs, the two segment buffers above all, weigh less per chunk the larger the cache:
 * 0.84 bytes a chunk at 10 M chunks of 16 KiB with the two 4 MiB windows of 16 MiB segments
 * ({@link SegmentBuffer#windowFor}), 0.08 at 100 M.
 *
 * <p>The default sketch ({@link VictimAdmission#DEFAULT_SKETCH_COUNTERS}) is 4 bytes a chunk at every
 * size; 8 never fits beside the index. With it the engine is within {@link #BYTES_PER_CHUNK} at both
 * sizes issue 15 sets the target for (15.45 and 14.23 bytes a chunk measured at 10 M and 100 M), and
 * by this estimate from about 7.3 M chunks up (120 GB of 16 KiB chunks; measured 15.53 at 7.3 M and
 * 16.61 at 4 M). Below, the fixed costs take it past 16 bytes a chunk. The 2-byte sketch would keep
 * 16 bytes a chunk down to about 3.6 M chunks (estimated) with 2 bytes a chunk less, up to 19 MB,
 * for a hit ratio up to 1.3 points lower (docs/cache-simulator.md): the hits are worth more than that
 * memory.
 */
public final class MemoryBudget {
    /** Issue 15's budget: at most 16 bytes of memory a cached chunk. */
    public static final double BYTES_PER_CHUNK = 16;
    /**
     * Heap besides the index and the sketch that grows with the cache (segment table and reclaim order,
     * about 100 bytes a segment; the victim samples), and what does not (the file registry, classes):
     * measured 0.65-0.73 bytes a chunk at 10 M chunks and 0.24-0.25 at 100 M (with the 2- and the
     * 4-byte sketch; docs/results/engine-history.md), 0.01 more since doomed segments have a table (9 bytes
     * a segment); these give 0.75 and 0.26, at or a little above. Each segment's live count (8 bytes a
     * segment, under 0.01 a chunk) and each file's cached extent (about 80 bytes a file) came later and
     * are not yet measured.
     */
    static final double OTHER_BYTES_PER_CHUNK = 0.21;
    static final double OTHER_FIXED_BYTES = 5.4e6;
    private static final int SEGMENT_BUFFERS = 2;

    private MemoryBudget() {
    }

    /**
     * Memory per chunk of an engine whose index holds {@code chunks}, with that sketch and doorkeeper
     * and segments of {@code segmentBytes}.
     */
    static double bytesPerChunk(long chunks, int sketchCounters, int doorkeeperBits, int segmentBytes) {
        double fixed = OTHER_FIXED_BYTES + (double) SEGMENT_BUFFERS * SegmentBuffer.windowFor(segmentBytes);
        return (double) (ChunkIndex.bytesFor(chunks) + FrequencySketch.bytesFor(chunks, sketchCounters,
                doorkeeperBits)) / chunks + OTHER_BYTES_PER_CHUNK + fixed / chunks;
    }
}

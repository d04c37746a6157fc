package io.flashchunk.cache.space;

import java.util.function.IntUnaryOperator;

/**
 * The paper's load-balanced address spaces: which space a segment opens in, and which space's
 * released segment is reclaimed, by the flash reads each space served since the last segment
 * opened, so writes and the hot chunks reinsertion moves go to the least loaded device. Without a
 * load, spaces take turns. Writer thread only.
 */
public final class SpaceBalancer {
    private final SegmentTable table;
    private final SpaceReads load;
    private final long[] readsAtLastOpen;
    private int nextSpace;

    /** @param load flash reads per space, or null: spaces in turn */
    public SpaceBalancer(SegmentTable table, SpaceReads load) {
        if (load != null && load.spaces() != table.spaces()) {
            throw new IllegalArgumentException(load.spaces() + " spaces' reads for " + table.spaces() + " spaces");
        }
        this.table = table;
        this.load = load;
        this.readsAtLastOpen = new long[table.spaces()];
    }

    /**
     * Opens a free segment in the space read least since the last segment opened (ties, and without
     * a load: the space with the most free segments, then the next in turn); -1 when none is free.
     */
    public int openFree() {
        int best = leastLoaded(table::freeSegments);
        if (best == -1) {
            return -1;
        }
        for (int space = 0; load != null && space < table.spaces(); space++) {
            readsAtLastOpen[space] = load.count(space);
        }
        nextSpace = (best + 1) % table.spaces();
        return table.open(best);
    }

    /**
     * Of the spaces with {@code available} segments, the one whose flash reads since the last
     * segment opened were fewest (ties: the most available, then the next in turn); -1 when none has any.
     */
    public int leastLoaded(IntUnaryOperator available) {
        int best = -1;
        long bestReads = 0;
        int bestAvailable = 0;
        for (int i = 0; i < table.spaces(); i++) {
            int space = (nextSpace + i) % table.spaces();
            int count = available.applyAsInt(space);
            if (count == 0) {
                continue;
            }
            long reads = load == null ? 0 : load.count(space) - readsAtLastOpen[space];
            if (best == -1 || reads < bestReads || (reads == bestReads && count > bestAvailable)) {
                best = space;
                bestReads = reads;
                bestAvailable = count;
            }
        }
        return best;
    }
}

package io.flashchunk.cache.space;

import java.util.function.IntUnaryOperator;

/**
 * The paper's load-balanced address spaces: which space a segment opens in, and which space's
 * released segment is reclaimed, by the time each space's flash reads took since the last segment
 * opened ({@link SpaceReads}), so writes, the hot chunks reinsertion writes again and those
 * {@link HotChunkMoves} moves go to the least loaded device. A space the moves take chunks off
 * opens a segment only when no other can: what it would take in, they would move out. Without a
 * load, spaces take turns. Writer thread only.
 */
public final class SpaceBalancer {
    private final SegmentTable table;
    private final SpaceReads load;
    private final HotChunkMoves moves;
    private final long[] busyAtLastOpen;
    private int nextSpace;

    /** @param load flash reads per space, or null: spaces in turn */
    public SpaceBalancer(SegmentTable table, SpaceReads load) {
        this(table, load, null);
    }

    /**
     * @param load  flash reads per space, or null: spaces in turn
     * @param moves the moves of hot chunks off loaded spaces, or null: none
     */
    public SpaceBalancer(SegmentTable table, SpaceReads load, HotChunkMoves moves) {
        if (load != null && load.spaces() != table.spaces()) {
            throw new IllegalArgumentException(load.spaces() + " spaces' reads for " + table.spaces() + " spaces");
        }
        this.table = table;
        this.load = load;
        this.moves = moves;
        this.busyAtLastOpen = new long[table.spaces()];
    }

    /**
     * Opens a free segment in the space whose reads took least time since the last segment opened
     * (ties, and without a load: the space with the most free segments, then the next in turn); -1
     * when none is free.
     */
    public int openFree() {
        int best = leastLoaded(table::freeSegments);
        if (best == -1) {
            return -1;
        }
        for (int space = 0; load != null && space < table.spaces(); space++) {
            busyAtLastOpen[space] = load.busyNanos(space);
        }
        nextSpace = (best + 1) % table.spaces();
        return table.open(best);
    }

    /**
     * Of the spaces with {@code available} segments, the one whose flash reads took least time since
     * the last segment opened (ties: the most available, then the next in turn), a space chunks are
     * moved off only when no other has any; -1 when none has any.
     */
    public int leastLoaded(IntUnaryOperator available) {
        int best = -1;
        boolean bestMovedOff = false;
        long leastBusy = 0;
        int bestAvailable = 0;
        for (int i = 0; i < table.spaces(); i++) {
            int space = (nextSpace + i) % table.spaces();
            int count = available.applyAsInt(space);
            if (count == 0) {
                continue;
            }
            boolean movedOff = moves != null && moves.source(space);
            long busy = load == null ? 0 : load.busyNanos(space) - busyAtLastOpen[space];
            boolean better = best == -1 || (bestMovedOff && !movedOff)
                    || (movedOff == bestMovedOff && (busy < leastBusy || (busy == leastBusy && count > bestAvailable)));
            if (better) {
                best = space;
                bestMovedOff = movedOff;
                leastBusy = busy;
                bestAvailable = count;
            }
        }
        return best;
    }
}

package io.flashchunk.cache.space;

/**
 * Buddy allocation of power-of-two runs of blocks within {@code [0, blocks)}: order {@code k} is a
 * run of {@code 2^k} blocks starting at a multiple of {@code 2^k}. Cassandra's chunks are powers of
 * two (4 KiB to 64 KiB), so only a file's short last chunk rounds up; freed runs merge with their
 * free buddies, so space freed by small chunks becomes usable by large ones again.
 *
 * <p>Per order, a bitmap says which runs are free (the truth) and a stack holds candidates (which
 * may be stale: a run merged into its parent stays on the stack until popped and checked).
 * Not thread-safe: {@link AddressSpace} guards it.
 */
final class BuddyAllocator {
    private final long blocks;
    private final int maxOrder;
    private final long[][] freeBits;
    private final LongStack[] candidates;
    private final long[] freeRuns;
    private long freeBlocks;
    // Blocks claimed so far by a bulk claim (recovery), one bit each; null outside one.
    private long[] claimed;

    BuddyAllocator(long blocks, int maxOrder) {
        if (blocks <= 0) {
            throw new IllegalArgumentException("an allocator needs at least one block, got " + blocks);
        }
        if (maxOrder < 0 || maxOrder > 20) {
            throw new IllegalArgumentException("largest order must be 0..20, got " + maxOrder);
        }
        this.blocks = blocks;
        this.maxOrder = maxOrder;
        this.freeBits = new long[maxOrder + 1][];
        this.candidates = new LongStack[maxOrder + 1];
        this.freeRuns = new long[maxOrder + 1];
        for (int order = 0; order <= maxOrder; order++) {
            long runs = blocks >>> order;
            freeBits[order] = new long[(int) ((runs + 63) >>> 6)];
            candidates[order] = new LongStack();
        }
        // Cover the range with the largest aligned runs that fit, from the front.
        long start = 0;
        while (start < blocks) {
            int order = maxOrder;
            while ((start & ((1L << order) - 1)) != 0 || start + (1L << order) > blocks) {
                order--;
            }
            markFree(start, order);
            start += 1L << order;
        }
    }

    long blocks() {
        return blocks;
    }

    long freeBlocks() {
        return freeBlocks;
    }

    /** The largest order with a free run, or -1 when nothing is free. */
    int largestFreeOrder() {
        for (int order = maxOrder; order >= 0; order--) {
            if (freeRuns[order] > 0) {
                return order;
            }
        }
        return -1;
    }

    /**
     * Allocates a run of {@code 2^order} blocks; returns its first block, or -1 when none is free.
     * The run is cut from a free run twice its size when there is one, so that its buddy stays free
     * for the chunk that follows it in its file (see {@link #allocateAt}); runs of exactly its size,
     * such leftover buddies among them, are used when none is left.
     */
    long allocate(int order) {
        checkOrder(order);
        int from = order < maxOrder && freeRuns[order + 1] > 0 ? order + 1 : order;
        while (from <= maxOrder && freeRuns[from] == 0) {
            from++;
        }
        if (from > maxOrder) {
            return -1;
        }
        long start = takeFree(from);
        // Split down: keep the lower half, free the upper halves.
        while (from > order) {
            from--;
            markFree(start + (1L << from), from);
        }
        return start;
    }

    /**
     * Allocates the run of {@code 2^order} blocks at {@code start} if all of it is free (it lies in
     * one free run, which is split down around it); returns whether it did. Placement uses it to
     * put a file's consecutive chunks side by side, so one read can fetch both.
     */
    boolean allocateAt(long start, int order) {
        checkOrder(order);
        if (start < 0 || start + (1L << order) > blocks || (start & ((1L << order) - 1)) != 0 || claimed != null) {
            return false;
        }
        int from = order;
        while (from <= maxOrder) {
            long run = start & -(1L << from);
            if (run + (1L << from) <= blocks && isFree(run, from)) {
                break;
            }
            from++;
        }
        if (from > maxOrder) {
            return false;
        }
        long run = start & -(1L << from);
        clearFree(run, from);
        // Split down towards start: each time, the half without it stays free.
        while (from > order) {
            from--;
            long half = 1L << from;
            if (start >= run + half) {
                markFree(run, from);
                run += half;
            } else {
                markFree(run + half, from);
            }
        }
        return true;
    }

    /**
     * Recovery, on an allocator with nothing allocated: takes every block set in {@code used} at
     * once. The free lists are rebuilt only by {@link #finishBulkClaim}; until then {@link #free}
     * gives back claimed runs (entries recovery drops) and nothing may be allocated. Claiming run by
     * run would split free runs and stack candidates for every entry instead.
     */
    void startBulkClaim(java.util.BitSet used) {
        if (freeBlocks != blocks || claimed != null) {
            throw new IllegalStateException("a bulk claim needs an allocator with nothing allocated");
        }
        if (used.length() > blocks) {
            throw new IllegalArgumentException("claimed block " + (used.length() - 1) + " is outside the "
                    + blocks + "-block space");
        }
        claimed = java.util.Arrays.copyOf(used.toLongArray(), (int) ((blocks + 63) >>> 6));
    }

    private void unclaimInBulk(long start, int order) {
        for (long block = start; block < start + (1L << order); block += 64) {
            long bits = mask(block, order);
            if ((claimed[(int) (block >>> 6)] & bits) != bits) {
                throw new IllegalStateException("free of the run of order " + order + " at block " + start
                        + ", which was not claimed");
            }
            claimed[(int) (block >>> 6)] &= ~bits;
        }
    }

    /** Ends a bulk claim: every block not claimed is free again, in the largest runs that fit. */
    void finishBulkClaim() {
        for (int order = 0; order <= maxOrder; order++) {
            java.util.Arrays.fill(freeBits[order], 0);
            freeRuns[order] = 0;
            candidates[order].clear();
        }
        freeBlocks = 0;
        long start = 0;
        while (start < blocks) {
            int order = maxOrder;
            while ((start & ((1L << order) - 1)) != 0 || start + (1L << order) > blocks) {
                order--;
            }
            freeUnclaimed(start, order);
            start += 1L << order;
        }
        claimed = null;
    }

    private void freeUnclaimed(long start, int order) {
        if (!anyClaimed(start, order)) {
            markFree(start, order);
        } else if (order > 0) {
            freeUnclaimed(start, order - 1);
            freeUnclaimed(start + (1L << (order - 1)), order - 1);
        }
    }

    private boolean anyClaimed(long start, int order) {
        for (long block = start; block < start + (1L << order); block += 64) {
            if ((claimed[(int) (block >>> 6)] & mask(block, order)) != 0) {
                return true;
            }
        }
        return false;
    }

    /** The bits of the aligned run's blocks within the word holding {@code block}. */
    private static long mask(long block, int order) {
        return order >= 6 ? -1L : ((1L << (1 << order)) - 1) << (block & 63);
    }

    /** Frees a run obtained from {@link #allocate} with the same order, merging with free buddies. */
    void free(long start, int order) {
        checkOrder(order);
        if (start < 0 || start + (1L << order) > blocks || (start & ((1L << order) - 1)) != 0) {
            throw new IllegalArgumentException("run of order " + order + " at block " + start + " is not a run of this "
                    + blocks + "-block space");
        }
        if (claimed != null) {
            unclaimInBulk(start, order);
            return;
        }
        if (isFreeWithin(start, order)) {
            throw new IllegalStateException("double free of the run of order " + order + " at block " + start);
        }
        while (order < maxOrder) {
            long buddy = start ^ (1L << order);
            if (buddy + (1L << order) > blocks || !isFree(buddy, order)) {
                break;
            }
            clearFree(buddy, order);
            start = Math.min(start, buddy);
            order++;
        }
        markFree(start, order);
    }

    private long takeFree(int order) {
        LongStack stack = candidates[order];
        while (true) {
            long start = stack.pop();
            if (isFree(start, order)) {
                clearFree(start, order);
                return start;
            }
        }
    }

    private void markFree(long start, int order) {
        long run = start >>> order;
        freeBits[order][(int) (run >>> 6)] |= 1L << run;
        freeRuns[order]++;
        freeBlocks += 1L << order;
        LongStack stack = candidates[order];
        // Stale candidates pile up under churn: rebuild from the bitmap when they dominate.
        if (stack.size() > 4 * freeRuns[order] + 1024) {
            rebuildCandidates(order);
        } else {
            stack.push(start);
        }
    }

    private void clearFree(long start, int order) {
        long run = start >>> order;
        freeBits[order][(int) (run >>> 6)] &= ~(1L << run);
        freeRuns[order]--;
        freeBlocks -= 1L << order;
    }

    private boolean isFree(long start, int order) {
        long run = start >>> order;
        return (freeBits[order][(int) (run >>> 6)] & (1L << run)) != 0;
    }

    /**
     * Whether the run is already free, whole or in part: free itself, inside a free larger run, or
     * its first sub-run free. A cheap guard against bookkeeping bugs, which would hand one block to
     * two chunks.
     */
    private boolean isFreeWithin(long start, int order) {
        for (int o = 0; o <= maxOrder; o++) {
            long run = start & -(1L << o);
            if (run + (1L << o) <= blocks && isFree(run, o)) {
                return true;
            }
        }
        return false;
    }

    private void rebuildCandidates(int order) {
        LongStack stack = candidates[order];
        stack.clear();
        long[] bits = freeBits[order];
        for (int word = 0; word < bits.length; word++) {
            long value = bits[word];
            while (value != 0) {
                int bit = Long.numberOfTrailingZeros(value);
                stack.push(((long) word * 64 + bit) << order);
                value &= value - 1;
            }
        }
    }

    private void checkOrder(int order) {
        if (order < 0 || order > maxOrder) {
            throw new IllegalArgumentException("order " + order + " is outside 0.." + maxOrder);
        }
    }
}

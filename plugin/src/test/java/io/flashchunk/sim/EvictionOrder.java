package io.flashchunk.sim;

/** Which sealed segment of a {@link SegmentLog} is reclaimed next. */
interface EvictionOrder {
    /** The segment was filled and will be read from until it is reclaimed. */
    void sealed(int segment);

    /** A chunk in the sealed or open segment was read. */
    void hit(int segment);

    /** The sealed segment {@link #victim} would take now, left in place; -1 if none is sealed. */
    int next();

    /** Takes the sealed segment to reclaim now; there is one whenever every segment has been sealed once. */
    int victim();

    /** Whether the order evicted a segment of its own accord ({@link #victim} takes it). */
    default boolean hasEvicted() {
        return false;
    }

    /** Up to {@code count} sealed segments to reclaim together, the first as {@link #victim} would take it. */
    default int[] victims(int count) {
        int[] chosen = new int[count];
        int n = 0;
        while (n < count && (n == 0 || next() >= 0)) {
            chosen[n++] = victim();
        }
        return java.util.Arrays.copyOf(chosen, n);
    }
}

package io.flashchunk.cache.reclaim;

import java.util.function.IntPredicate;

/**
 * Which durable segment is reclaimed next: the eviction policy at segment granularity. The writer
 * calls {@link #written} and {@link #victim} from its thread; readers call {@link #read} from any.
 */
public interface ReclaimOrder {
    /** A segment is on flash and may be reclaimed from now on. */
    void written(int segment);

    /** A segment was opened for a new use: nothing counted for an earlier use carries over. Writer thread. */
    default void opened(int segment) {
    }

    /** A chunk of a durable segment was read from flash. */
    void read(int segment);

    /**
     * Whether the order gave up a segment of its own accord (over its room as a segment was
     * written), which {@link #victim} then returns first. Writer thread.
     */
    default boolean hasEvicted() {
        return false;
    }

    /** The segment to reclaim next, no longer in the order; -1 when no segment may be reclaimed. */
    int victim();

    /** The segment {@link #victim} would return now, left in the order; -1 when none. Writer thread. */
    int next();

    /**
     * Of the segments in the order that {@code which} accepts, up to {@code max} in the order it would
     * give them up, left in the order (none accepted: an empty array). One walk from the coldest end,
     * which a rare {@code which} makes a walk of the whole order. Writer thread.
     */
    int[] coldest(IntPredicate which, int max);

    /**
     * Takes {@code segment} out of the order to be reclaimed now, ahead of its turn (its chunks are
     * known to be dead); false when it is not in the order (not durable, or already chosen). Writer thread.
     */
    boolean take(int segment);
}

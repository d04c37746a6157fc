package io.flashchunk.cache.space;

/** Where a segment is in its life; only {@link SegmentTable} changes it. */
public enum SegmentState {
    /** Ready to be opened. */
    FREE,
    /** Filling in memory; its chunks are served from the segment's buffer. */
    OPEN,
    /** Full and queued for writing, or being written; still served from memory (the write queue's second stage). */
    SEALED,
    /** On flash and served from there. */
    DURABLE,
    /**
     * Chosen to be reclaimed, and still served from flash until it is: no checkpoint names it from
     * now on, so once one that started later is durable it is reused without waiting for another.
     */
    DOOMED,
    /** Being reclaimed (its chunks leaving the index): no new reads; waits for those in flight. */
    RECLAIMING,
    /** Reclaimed, but a durable checkpoint may still name it: not reused until a later checkpoint is durable. */
    RETIRED,
    /** Free, its range being discarded (TRIM) before it may be opened: see {@link SegmentTable#discardFreed}. */
    DISCARDING;

    /** Whether a read of a chunk in a segment in this state may start. */
    boolean readable() {
        return this == OPEN || this == SEALED || this == DURABLE || this == DOOMED;
    }
}

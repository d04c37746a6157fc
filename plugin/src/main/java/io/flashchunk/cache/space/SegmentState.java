package io.flashchunk.cache.space;

/** Where a segment is in its life; only {@link SegmentTable} changes it. */
public enum SegmentState {
    /** Ready to be opened. */
    FREE(false),
    /** Filling in memory; its chunks are served from the segment's buffer. */
    OPEN(true),
    /** Full and queued for writing, or being written; still served from memory (the write queue's second stage). */
    SEALED(true),
    /** On flash and served from there. */
    DURABLE(true),
    /**
     * Chosen to be reclaimed, and still served from flash until it is: no checkpoint names it from
     * now on, so once one that started later is durable it is reused without waiting for another.
     */
    DOOMED(true),
    /** Being reclaimed (its chunks leaving the index): no new reads; waits for those in flight. */
    RECLAIMING(false),
    /** Reclaimed, but a durable checkpoint may still name it: not reused until a later checkpoint is durable. */
    RETIRED(false),
    /** Free, its range being discarded (TRIM) before it may be opened: see {@link SegmentTable#discardFreed}. */
    DISCARDING(false);

    /**
     * A field, not a test of the state: a hit tests it, and the JIT compiles a comparison the reads it
     * profiled never took (hits of recovered, durable segments only, as after a restart) into code it
     * throws away when one does.
     */
    private final boolean readable;

    SegmentState(boolean readable) {
        this.readable = readable;
    }

    /** Whether a read of a chunk in a segment in this state may start. */
    boolean readable() {
        return readable;
    }
}

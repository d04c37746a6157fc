package io.flashchunk.cache.compact;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Every segment's state, sequence and reads in flight, for all address spaces: the one owner of a
 * segment's life ({@link SegmentState}) and of the rule that space a durable checkpoint may name is
 * never rewritten before a later checkpoint is durable (the paper's retired free list, at segment
 * granularity).
 *
 * <p>A segment is numbered {@code space * segmentsPerSpace + index}. Each use of a segment gets a new
 * sequence, higher than any before it; records carry it, so a record from an earlier use is refused.
 *
 * <p>Concurrency: one writer thread makes every state change; readers {@link #pin} and
 * {@link #unpin} from any thread. A segment being reclaimed takes no new pins, and is reusable only
 * once its pins are gone ({@link #finishReclaim}): a reader pins, then reads the state; the writer
 * sets the state, then reads the pins (both volatile), so one of them sees the other.
 */
public final class SegmentTable {
    private static final VarHandle STATES = MethodHandles.arrayElementVarHandle(SegmentState[].class);

    private final int spaces;
    private final int segmentsPerSpace;
    private final SegmentState[] states;
    private final long[] sequences;
    private final long[] retiredAtEpoch;
    private final AtomicIntegerArray pins;
    private final ArrayDeque<Integer>[] free;
    private final ArrayDeque<Integer> retired = new ArrayDeque<>();
    private long nextSequence = 1;
    private long epoch;

    @SuppressWarnings("unchecked")
    public SegmentTable(int spaces, int segmentsPerSpace) {
        if (spaces < 1 || spaces > RecordAddress.MAX_SPACES || segmentsPerSpace < 1) {
            throw new IllegalArgumentException(spaces + " spaces of " + segmentsPerSpace + " segments");
        }
        this.spaces = spaces;
        this.segmentsPerSpace = segmentsPerSpace;
        int segments = spaces * segmentsPerSpace;
        states = new SegmentState[segments];
        sequences = new long[segments];
        retiredAtEpoch = new long[segments];
        pins = new AtomicIntegerArray(segments);
        free = new ArrayDeque[spaces];
        for (int space = 0; space < spaces; space++) {
            free[space] = new ArrayDeque<>();
            for (int index = 0; index < segmentsPerSpace; index++) {
                setState(space * segmentsPerSpace + index, SegmentState.FREE);
                free[space].add(space * segmentsPerSpace + index);
            }
        }
    }

    public int segments() {
        return states.length;
    }

    public int space(int segment) {
        return segment / segmentsPerSpace;
    }

    public int freeSegments(int space) {
        return free[space].size();
    }

    public SegmentState state(int segment) {
        return (SegmentState) STATES.getVolatile(states, segment);
    }

    public long sequence(int segment) {
        return sequences[segment];
    }

    /** Opens a free segment of {@code space} for its next use; returns it, or -1 when the space has none free. */
    public int open(int space) {
        Integer segment = free[space].poll();
        if (segment == null) {
            return -1;
        }
        sequences[segment] = nextSequence++; // published by the state's volatile write
        setState(segment, SegmentState.OPEN);
        return segment;
    }

    public void seal(int segment) {
        move(segment, SegmentState.OPEN, SegmentState.SEALED);
    }

    public void written(int segment) {
        move(segment, SegmentState.SEALED, SegmentState.DURABLE);
    }

    /** Starts reclaiming a durable segment: reads already pinned finish, no new ones start. */
    public void startReclaim(int segment) {
        move(segment, SegmentState.DURABLE, SegmentState.RECLAIMING);
    }

    /**
     * Retires a segment being reclaimed once no read is pinned to it; returns whether it did (if not,
     * call again: reads in flight end within the device timeout).
     */
    public boolean finishReclaim(int segment) {
        if (state(segment) != SegmentState.RECLAIMING) {
            throw new IllegalStateException("segment " + segment + " is " + state(segment) + ", not being reclaimed");
        }
        if (pins.get(segment) != 0) {
            return false;
        }
        setState(segment, SegmentState.RETIRED);
        retiredAtEpoch[segment] = epoch;
        retired.add(segment);
        return true;
    }

    /**
     * Drops an open or sealed segment whose buffer will never reach flash (its write failed): it is
     * retired like a reclaimed one, since its readers may still be pinned.
     */
    public void abandon(int segment) {
        SegmentState state = state(segment);
        if (state != SegmentState.OPEN && state != SegmentState.SEALED) {
            throw new IllegalStateException("segment " + segment + " is " + state + ", not open or sealed");
        }
        setState(segment, SegmentState.RECLAIMING);
    }

    /**
     * A checkpoint's copy of the index starts: returns its epoch. Segments retired from now on may be
     * named by that checkpoint.
     */
    public long checkpointStarted() {
        return ++epoch;
    }

    /**
     * The checkpoint of {@code checkpointEpoch} is durable: segments retired before its copy started
     * are named by no checkpoint that recovery could choose, and become free. Returns how many.
     */
    public int checkpointDurable(long checkpointEpoch) {
        int freed = 0;
        while (!retired.isEmpty() && retiredAtEpoch[retired.peek()] < checkpointEpoch) {
            int segment = retired.poll();
            setState(segment, SegmentState.FREE);
            free[space(segment)].add(segment);
            freed++;
        }
        return freed;
    }

    /**
     * Pins {@code segment} for a read and returns the sequence of its current use, which records read
     * from it must carry; returns -1 (nothing pinned) when the segment is not readable. A pinned
     * segment is not reused until unpinned.
     */
    public long pin(int segment) {
        pins.incrementAndGet(segment);
        // The state is read after the pin is visible: a reclaim that starts later waits for this
        // read, and one that started earlier is seen here.
        if (state(segment).readable()) {
            return sequences[segment];
        }
        pins.decrementAndGet(segment);
        return -1;
    }

    public void unpin(int segment) {
        if (pins.decrementAndGet(segment) < 0) {
            throw new IllegalStateException("segment " + segment + " unpinned more often than pinned");
        }
    }

    private void move(int segment, SegmentState from, SegmentState to) {
        if (state(segment) != from) {
            throw new IllegalStateException("segment " + segment + " is " + state(segment) + ", not " + from);
        }
        setState(segment, to);
    }

    private void setState(int segment, SegmentState state) {
        STATES.setVolatile(states, segment, state);
    }
}

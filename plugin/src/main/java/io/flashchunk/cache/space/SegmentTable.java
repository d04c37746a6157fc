package io.flashchunk.cache.space;

import io.flashchunk.cache.format.RecordAddress;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Iterator;
import java.util.function.IntPredicate;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Every segment's state, sequence and reads in flight, for all address spaces: the one owner of a
 * segment's life ({@link SegmentState}) and of the rule that space a durable checkpoint may name is
 * never rewritten before a later checkpoint is durable (the paper's retired free list, at segment
 * granularity).
 *
 * <p>Reclaiming takes two steps, so that the flash waiting for a checkpoint still serves: a segment
 * chosen to go is {@link #doom doomed} (still read, named by no checkpoint that starts later); once
 * such a checkpoint is durable it is released, and the writer reclaims it when it needs a segment
 * ({@link #takeReleased}): its chunks leave the index, and when its reads have ended it is free at
 * once. A segment abandoned after a failed write is retired instead, and waits for the next
 * checkpoint.
 *
 * <p>Segments are numbered across spaces: space 0's first, then space 1's, and so on
 * ({@link #segment}). Each use of a segment gets a new
 * sequence, higher than any before it; records carry it, so a record from an earlier use is refused.
 *
 * <p>Concurrency: one writer thread makes every state change; a checkpoint's thread calls
 * {@link #startCheckpoint} and {@link #checkpointDurable} (the free and retired lists are guarded by
 * this table's lock, taken once per segment, never per chunk); readers {@link #pin} and
 * {@link #unpin} from any thread; a space's discarding thread takes its segments to discard and frees
 * each when its discard ended ({@link #awaitToDiscard}, {@link #discardEnded}), under the lock as a
 * checkpoint frees retired ones. A segment being reclaimed takes no new pins, and is reusable only
 * once its pins are gone ({@link #finishReclaim}): a reader pins, then reads the state; the writer
 * sets the state, then reads the pins (both volatile), so one of them sees the other.
 */
public final class SegmentTable {
    private static final VarHandle STATES = MethodHandles.arrayElementVarHandle(SegmentState[].class);

    /** The number of each space's first segment, and the total at the end. */
    private final int[] firstSegment;
    private final byte[] spaceOf;
    private final SegmentState[] states;
    private final long[] sequences;
    private final long[] retiredAtEpoch;
    /** Per segment, the sectors of its open use already on flash ({@link #prefixWritten}), else 0. */
    private final int[] writtenSectors;
    /**
     * Per segment, the sectors of its current use whose records are on flash and may be read there:
     * the windows written before the one filling ({@link #windowsWritten}), all of a written or
     * recovered segment's; readers read it without a lock. Nothing past it is ever read from flash:
     * those sectors hold whatever an earlier use, or an earlier cache on the device, left there.
     */
    private final AtomicIntegerArray readableSectors;
    private final AtomicIntegerArray pins;
    /** Per space and state, how many segments are in it: statistics read it without walking every segment. */
    private final AtomicIntegerArray counts;
    private final ArrayDeque<Integer>[] free;
    private final ArrayDeque<Integer> retired = new ArrayDeque<>();
    private final long[] doomedAtEpoch;
    /** Doomed segments that a durable checkpoint may still name, oldest first. */
    private final ArrayDeque<Integer> doomed = new ArrayDeque<>();
    /** Per space, doomed segments no durable checkpoint names any more: reclaimed when a segment is needed. */
    private final ArrayDeque<Integer>[] released;
    /** Per segment: a released one, free as soon as its reclaim ends. */
    private final boolean[] freeOnReclaim;
    /** Per space: whether a segment that becomes free is discarded first ({@link #discardFreed}). */
    private final boolean[] discardSpace;
    /** Per space, segments to discard, in the order they became free. */
    private final ArrayDeque<Integer>[] toDiscard;
    /** No more discards are handed out ({@link #stopDiscards}). */
    private boolean discardsStopped;
    private long nextSequence = 1;
    /** Sequences at or above this are not reserved on the devices ({@link #limitSequences}). */
    private long sequenceLimit = Long.MAX_VALUE;
    private long epoch;

    /** @param segmentsInSpace how many segments each address space has */
    @SuppressWarnings("unchecked")
    public SegmentTable(int... segmentsInSpace) {
        int spaces = segmentsInSpace.length;
        if (spaces < 1 || spaces > RecordAddress.MAX_SPACES) {
            throw new IllegalArgumentException(spaces + " address spaces; 1.." + RecordAddress.MAX_SPACES + " are possible");
        }
        firstSegment = new int[spaces + 1];
        for (int space = 0; space < spaces; space++) {
            if (segmentsInSpace[space] < 1) {
                throw new IllegalArgumentException("space " + space + " has " + segmentsInSpace[space] + " segments");
            }
            firstSegment[space + 1] = Math.addExact(firstSegment[space], segmentsInSpace[space]);
        }
        int segments = firstSegment[spaces];
        states = new SegmentState[segments];
        sequences = new long[segments];
        retiredAtEpoch = new long[segments];
        doomedAtEpoch = new long[segments];
        freeOnReclaim = new boolean[segments];
        writtenSectors = new int[segments];
        readableSectors = new AtomicIntegerArray(segments);
        spaceOf = new byte[segments];
        pins = new AtomicIntegerArray(segments);
        counts = new AtomicIntegerArray(spaces * SegmentState.values().length);
        free = new ArrayDeque[spaces];
        released = new ArrayDeque[spaces];
        discardSpace = new boolean[spaces];
        toDiscard = new ArrayDeque[spaces];
        for (int space = 0; space < spaces; space++) {
            free[space] = new ArrayDeque<>();
            released[space] = new ArrayDeque<>();
            toDiscard[space] = new ArrayDeque<>();
            for (int segment = firstSegment[space]; segment < firstSegment[space + 1]; segment++) {
                spaceOf[segment] = (byte) space;
                setState(segment, SegmentState.FREE);
                free[space].add(segment);
            }
        }
    }

    public int spaces() {
        return firstSegment.length - 1;
    }

    /** Segments in {@code space}. */
    public int segmentsIn(int space) {
        return firstSegment[space + 1] - firstSegment[space];
    }

    /** Segments retired or doomed and waiting for a checkpoint to free or release them. */
    public synchronized int waitingForCheckpoint() {
        return retired.size() + doomed.size();
    }

    /** Doomed segments of {@code space} a durable checkpoint released: {@link #takeReleased} gives one. */
    public synchronized int releasedSegments(int space) {
        return released[space].size();
    }

    /** The number of segment {@code index} of {@code space}. */
    public int segment(int space, int index) {
        return firstSegment[space] + index;
    }

    /** A segment's place within its space. */
    public int index(int segment) {
        return segment - firstSegment[space(segment)];
    }

    public int segments() {
        return states.length;
    }

    public int space(int segment) {
        return spaceOf[segment];
    }

    public synchronized int freeSegments(int space) {
        return free[space].size();
    }

    public SegmentState state(int segment) {
        return (SegmentState) STATES.getVolatile(states, segment);
    }

    public long sequence(int segment) {
        return sequences[segment];
    }

    /** Opens a free segment of {@code space} for its next use; returns it, or -1 when the space has none free. */
    public synchronized int open(int space) {
        if (nextSequence >= sequenceLimit) {
            // Unreachable in practice (a start reserves 2^36): a sequence not reserved could repeat one on flash.
            throw new IllegalStateException("segment sequences reserved up to " + sequenceLimit
                    + " are used up: no segment opens until the cache restarts");
        }
        Integer segment = free[space].poll();
        if (segment == null) {
            return -1;
        }
        sequences[segment] = nextSequence++; // published by the state's volatile write
        writtenSectors[segment] = 0;
        readableSectors.set(segment, 0);
        setState(segment, SegmentState.OPEN);
        return segment;
    }

    /**
     * The open segment's records in its first {@code sectors} sectors are on flash with a summary of
     * them: a checkpoint may name the segment and chunks in those sectors, before it is sealed.
     */
    public synchronized void prefixWritten(int segment, int sectors) {
        if (state(segment) != SegmentState.OPEN || sectors < writtenSectors[segment]) {
            throw new IllegalStateException("segment " + segment + " is " + state(segment) + " with "
                    + writtenSectors[segment] + " sectors written, not open below " + sectors);
        }
        writtenSectors[segment] = sectors;
    }

    /** Sectors of the segment's open use written ahead of its seal ({@link #prefixWritten}); 0 when none. */
    public synchronized int writtenSectors(int segment) {
        return writtenSectors[segment];
    }

    /**
     * The open segment's records that start below {@code sectors} are on flash (its earlier windows'
     * writes ended), so a reader that no longer finds them in a buffer reads them there. Called before
     * the window's buffer is reused, so a reader that sees the buffer hold something else sees this.
     */
    public void windowsWritten(int segment, int sectors) {
        if (state(segment) != SegmentState.OPEN || sectors < readableSectors.get(segment)) {
            throw new IllegalStateException("segment " + segment + " is " + state(segment) + " with "
                    + readableSectors.get(segment) + " sectors readable on flash, not open below " + sectors);
        }
        readableSectors.set(segment, sectors);
    }

    /**
     * Sectors from the segment's start that a read of its current use may read on flash: the windows
     * written of an open, sealed or abandoned segment ({@link #windowsWritten}), every sector of a
     * written or recovered one. Only grows while the segment is pinned.
     */
    public int readableSectors(int segment) {
        return readableSectors.get(segment);
    }

    public void seal(int segment) {
        move(segment, SegmentState.OPEN, SegmentState.SEALED);
    }

    public void written(int segment) {
        // Before the state: a reader that sees the segment durable sees all of it readable.
        readableSectors.set(segment, Integer.MAX_VALUE);
        move(segment, SegmentState.SEALED, SegmentState.DURABLE);
    }

    /**
     * Starts reclaiming a durable segment, or a released doomed one ({@link #takeReleased}): reads
     * already pinned finish, no new ones start.
     */
    public void startReclaim(int segment) {
        // Not under the lock: only the writer changes a state or takes a released segment.
        if (state(segment) == SegmentState.DOOMED && !isFreeOnReclaim(segment)) {
            throw new IllegalStateException("segment " + segment + " is doomed and not yet released by a checkpoint");
        }
        if (state(segment) != SegmentState.DOOMED) {
            move(segment, SegmentState.DURABLE, SegmentState.RECLAIMING);
        } else {
            setState(segment, SegmentState.RECLAIMING);
        }
    }

    private synchronized boolean isFreeOnReclaim(int segment) {
        return freeOnReclaim[segment];
    }

    /**
     * Chooses a durable segment to be reclaimed: it is served on, but no checkpoint that starts from
     * now on names it, and once one is durable the segment is released ({@link #takeReleased}).
     */
    public synchronized void doom(int segment) {
        move(segment, SegmentState.DURABLE, SegmentState.DOOMED);
        doomedAtEpoch[segment] = epoch;
        doomed.add(segment);
    }

    /**
     * A doomed segment of {@code space} that no durable checkpoint names, taken to be reclaimed now
     * ({@link #startReclaim}); free once its reclaim ends. -1 when the space has none.
     */
    public synchronized int takeReleased(int space) {
        Integer segment = released[space].poll();
        return segment == null ? -1 : segment;
    }

    /**
     * As {@link #takeReleased(int)}, up to {@code max} released segments of {@code space} that
     * {@code which} accepts, in one pass over them; the others stay released in their order.
     */
    public synchronized int[] takeReleased(int space, IntPredicate which, int max) {
        int[] taken = new int[Math.min(max, released[space].size())];
        int n = 0;
        for (Iterator<Integer> it = released[space].iterator(); it.hasNext() && n < taken.length; ) {
            int segment = it.next();
            if (which.test(segment)) {
                it.remove();
                taken[n++] = segment;
            }
        }
        return Arrays.copyOf(taken, n);
    }

    /**
     * Retires a segment being reclaimed once no read is pinned to it; returns whether it did (if not,
     * call again: reads in flight end within the device timeout).
     */
    public synchronized boolean finishReclaim(int segment) {
        if (state(segment) != SegmentState.RECLAIMING) {
            throw new IllegalStateException("segment " + segment + " is " + state(segment) + ", not being reclaimed");
        }
        if (pins.get(segment) != 0) {
            return false;
        }
        if (freeOnReclaim[segment]) {
            // Released: no durable checkpoint names it, so it is free at once.
            freeOnReclaim[segment] = false;
            becomeFree(segment);
            return true;
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
    synchronized long checkpointStarted() {
        return ++epoch;
    }

    /**
     * The checkpoint of {@code checkpointEpoch} is durable: segments retired or doomed before its
     * copy started are named by no checkpoint that recovery could choose; the retired become free,
     * the doomed released. Returns how many of both.
     */
    public synchronized int checkpointDurable(long checkpointEpoch) {
        int freed = 0;
        while (!retired.isEmpty() && retiredAtEpoch[retired.peek()] < checkpointEpoch) {
            int segment = retired.poll();
            becomeFree(segment);
            freed++;
        }
        while (!doomed.isEmpty() && doomedAtEpoch[doomed.peek()] < checkpointEpoch) {
            int segment = doomed.poll();
            freeOnReclaim[segment] = true;
            released[space(segment)].add(segment);
            freed++;
        }
        return freed;
    }

    /**
     * What a checkpoint names: its epoch, and per segment (numbered across spaces) the sequence of a
     * durable one or of one written in part, else 0, and the sectors it may name chunks in (all of a
     * durable one's, the written part of another's).
     */
    public static final class Named {
        private final long epoch;
        private final long[] sequences;
        private final int[] sectors;
        private final long unwrittenFrom;

        /**
         * @param unwrittenFrom the lowest sequence of a segment open or sealed and not yet written whole
         *                      (Long.MAX_VALUE when none): records of it and later may lie past what is named
         */
        public Named(long epoch, long[] sequences, int[] sectors, long unwrittenFrom) {
            this.epoch = epoch;
            this.sequences = sequences;
            this.sectors = sectors;
            this.unwrittenFrom = unwrittenFrom;
        }

        /**
         * The lowest segment sequence whose records this checkpoint may not name whole: every record
         * of an earlier sequence that is still on flash lies in a durable segment, named whole.
         */
        public long unwrittenFrom() {
            return unwrittenFrom;
        }

        public long epoch() {
            return epoch;
        }

        public long[] sequences() {
            return sequences;
        }

        public int[] sectors() {
            return sectors;
        }

        /** Whether a chunk at {@code sector} of {@code segment} is on flash as this checkpoint names it. */
        public boolean names(int segment, int sector) {
            return sequences[segment] != 0 && sector < sectors[segment];
        }

        @Override
        public String toString() {
            return "Named[epoch=" + epoch + ", sequences=" + sequences + ", sectors=" + sectors + "]";
        }
    }

    /**
     * A checkpoint starts: returns its epoch and what it may name: the durable segments (not the
     * doomed), and the part written of those open or sealed but not yet written whole. Segments
     * retired or doomed from now on wait for a checkpoint after this one; those named now are not
     * reused until this checkpoint, or a later one, is durable.
     */
    public synchronized Named startCheckpoint() {
        long started = checkpointStarted();
        long[] named = new long[segments()];
        int[] sectors = new int[segments()];
        long unwrittenFrom = Long.MAX_VALUE;
        for (int segment = 0; segment < named.length; segment++) {
            SegmentState state = state(segment);
            if (state == SegmentState.DURABLE) {
                named[segment] = sequences[segment];
                sectors[segment] = Integer.MAX_VALUE;
            } else if (state == SegmentState.OPEN || state == SegmentState.SEALED) {
                unwrittenFrom = Math.min(unwrittenFrom, sequences[segment]);
                if (writtenSectors[segment] > 0) {
                    named[segment] = sequences[segment];
                    sectors[segment] = writtenSectors[segment];
                }
            }
        }
        return new Named(started, named, sectors, unwrittenFrom);
    }

    /**
     * Recovery, before the writer starts: each segment with a sequence in {@code sequences} (numbered
     * across spaces; 0 = none) becomes durable again with the sequence of the use a checkpoint named;
     * the others stay free. Only a table with every segment free is restored.
     */
    public synchronized void restoreDurable(long[] sequences) {
        if (sequences.length != segments()) {
            throw new IllegalArgumentException(sequences.length + " sequences for " + segments() + " segments");
        }
        for (int segment = 0; segment < sequences.length; segment++) {
            if (state(segment) != SegmentState.FREE) {
                throw new IllegalStateException("segment " + segment + " is " + state(segment) + ", not free");
            }
        }
        for (ArrayDeque<Integer> list : free) {
            list.clear();
        }
        for (int segment = 0; segment < sequences.length; segment++) {
            if (sequences[segment] > 0) {
                this.sequences[segment] = sequences[segment];
                readableSectors.set(segment, Integer.MAX_VALUE);
                setState(segment, SegmentState.DURABLE);
                nextSequence = Math.max(nextSequence, sequences[segment] + 1);
            } else {
                free[space(segment)].add(segment);
            }
        }
    }

    /** Recovery: the next segment opened gets a sequence of at least {@code sequence}. */
    public synchronized void continueSequencesFrom(long sequence) {
        nextSequence = Math.max(nextSequence, sequence);
    }

    /**
     * Start: only sequences below {@code limit} are reserved on the devices (no earlier run gave
     * them out, and none later will), so no segment opens with one at or above it.
     */
    public synchronized void limitSequences(long limit) {
        sequenceLimit = limit;
    }

    /** The sequence the next segment opened will get. */
    public synchronized long nextSequence() {
        return nextSequence;
    }

    /**
     * From now on a segment of a space marked in {@code perSpace} that becomes free is discarded
     * (TRIM) before it may be opened again, and so is every such segment free now (after a format,
     * all of them; after recovery, those no checkpoint names). Until its discard ended
     * ({@link #discardEnded}) it is {@link SegmentState#DISCARDING}: not read, not opened. Nothing a
     * durable checkpoint may name is ever discarded: a segment becomes free only once none does.
     * Called before the writer starts.
     */
    public synchronized void discardFreed(boolean[] perSpace) {
        if (perSpace.length != spaces()) {
            throw new IllegalArgumentException(perSpace.length + " discard settings for " + spaces() + " spaces");
        }
        for (int space = 0; space < spaces(); space++) {
            discardSpace[space] = perSpace[space];
            if (perSpace[space]) {
                for (Integer segment = free[space].poll(); segment != null; segment = free[space].poll()) {
                    becomeFree(segment);
                }
            }
        }
    }

    /**
     * The next segment of {@code space} to discard, waiting for one; -1 once {@link #stopDiscards}
     * was called. The space's discarding thread's.
     */
    public synchronized int awaitToDiscard(int space) throws InterruptedException {
        while (toDiscard[space].isEmpty() && !discardsStopped) {
            wait();
        }
        return discardsStopped ? -1 : toDiscard[space].poll();
    }

    /** The discard of {@code segment} ended (or failed, or was not made): it is free. */
    public synchronized void discardEnded(int segment) {
        if (state(segment) != SegmentState.DISCARDING) {
            throw new IllegalStateException("segment " + segment + " is " + state(segment) + ", not being discarded");
        }
        setState(segment, SegmentState.FREE);
        free[space(segment)].add(segment);
    }

    /**
     * {@code space}'s device cannot discard: its segments are freed without, those waiting for a
     * discard at once (one taken by the discarding thread ends through {@link #discardEnded}).
     */
    public synchronized void stopDiscarding(int space) {
        discardSpace[space] = false;
        for (Integer segment = toDiscard[space].poll(); segment != null; segment = toDiscard[space].poll()) {
            discardEnded(segment);
        }
    }

    /** No segment is handed out to be discarded from now on; those waiting stay DISCARDING (a restart frees them). */
    public synchronized void stopDiscards() {
        discardsStopped = true;
        notifyAll();
    }

    /** Whether some space discards its freed segments. */
    public synchronized boolean discardsAny() {
        for (boolean discards : discardSpace) {
            if (discards) {
                return true;
            }
        }
        return false;
    }

    /** Segments of {@code space} waiting for their discard or being discarded. */
    public int discarding(int space) {
        return count(space, SegmentState.DISCARDING);
    }

    /** Segments of all spaces waiting for their discard or being discarded. */
    public int discarding() {
        int all = 0;
        for (int space = 0; space < spaces(); space++) {
            all += discarding(space);
        }
        return all;
    }

    /** No durable checkpoint names {@code segment}: it is free, or first discarded. Under the lock. */
    private void becomeFree(int segment) {
        int space = space(segment);
        if (discardSpace[space]) {
            setState(segment, SegmentState.DISCARDING);
            toDiscard[space].add(segment);
            notifyAll();
        } else {
            setState(segment, SegmentState.FREE);
            free[space].add(segment);
        }
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

    /** By the writer, or under this table's lock (checkpoints, discards): the counts are atomic. */
    private void setState(int segment, SegmentState state) {
        SegmentState before = states[segment];
        int base = space(segment) * SegmentState.values().length;
        if (before != null) {
            counts.decrementAndGet(base + before.ordinal());
        }
        counts.incrementAndGet(base + state.ordinal());
        STATES.setVolatile(states, segment, state);
    }

    /** How many segments of {@code space} are in {@code state} now (exact when the writer is idle). */
    public int count(int space, SegmentState state) {
        return counts.get(space * SegmentState.values().length + state.ordinal());
    }
}

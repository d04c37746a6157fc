package io.flashchunk.cache.space;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntPredicate;

/**
 * The paper's move of hot chunks off a loaded address space. Once a second ({@link #tick}, the
 * writer's thread) each space's load is averaged: the time its flash reads took per second, that is
 * its reads in flight on average ({@link SpaceReads}), so a slow or throttled device is loaded
 * sooner than a fast one at the same rate (a read that failed or timed out, or could not start,
 * loads it too). Of the spaces in use (a device a breaker took out of use is neither measured against
 * nor moved to), a space is a source while its average is at least {@link #MIN_IN_FLIGHT} and more
 * than {@link #LOADED_RATIO} times the least loaded one's. A hit read from a source is then written
 * again ({@link #take}, any thread), at most {@code bytesPerSecond} of them a second, into the
 * writer's open segment, which opens where reads took least time; the writer keeps a move only when
 * that segment's space is in use and loaded {@link #LOADED_RATIO} times less than the source
 * ({@link #lessLoaded}). Hits are the chunks read most, so the hottest move first without a scan,
 * and moves stop once the loads are within the ratio: the flash they write is bounded by the
 * imbalance and by the rate. A record written in the last {@link #SETTLE_SECONDS} seconds is not
 * moved: the averages lag a few seconds behind the moves, and a chunk moved on their word must not
 * be moved back before they have seen what its move did. Where a space has taken the sources' chunks
 * for as long ({@link #target}), the writer makes room in it when it is full, giving up its coldest
 * segments for the moves.
 */
public final class HotChunkMoves {
    /** How much more loaded than the least loaded space a source is. */
    public static final double LOADED_RATIO = 1.5;
    /** Reads in flight on average below which a space is not worth moving chunks off (5% of one read's time). */
    public static final double MIN_IN_FLIGHT = 0.05;
    /** Weight of the last second in each space's average (about four seconds' memory). */
    static final double WEIGHT = 0.25;
    /** Seconds a record stays where it was written before a move may take it. */
    public static final int SETTLE_SECONDS = 10;
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final SpaceReads load;
    private final long bytesPerSecond;
    private final IntPredicate inUse;
    /** The writer's next record sequence at each of the last ticks: a ring whose next slot holds the oldest. */
    private final long[] sequencesAtTicks = new long[SETTLE_SECONDS];
    private int ticks;
    /** Records of a segment use below this were written at least {@link #SETTLE_SECONDS} ago. */
    private volatile long settledBelow;
    private final long[] busyAtTick;
    // The writer's alone: written by tick, read by lessLoaded.
    private final double[] average;
    private long lastTick;
    private boolean averaged;
    /** Per space, whether hits read from it are moved: replaced whole at each tick. */
    private volatile boolean[] sources;
    /**
     * Per space, the ticks in a row at which it was in use, not a source, and loaded
     * {@link #LOADED_RATIO} times less than every source (0 at a tick without sources). The writer's alone.
     */
    private final int[] targetTicks;
    private final AtomicLong budget = new AtomicLong();
    private final LongAdder taken = new LongAdder();

    /**
     * @param load           the spaces' flash reads and their time
     * @param bytesPerSecond chunk bytes moved a second at most (positive)
     * @param nowNanos       the time of the first tick's span start (the clock {@link #tick} is given)
     * @param inUse          whether a space's device is in use now
     */
    public HotChunkMoves(SpaceReads load, long bytesPerSecond, long nowNanos, IntPredicate inUse) {
        if (bytesPerSecond < 1) {
            throw new IllegalArgumentException("bytes moved a second must be positive, got " + bytesPerSecond);
        }
        this.load = load;
        this.bytesPerSecond = bytesPerSecond;
        this.inUse = inUse;
        this.busyAtTick = new long[load.spaces()];
        this.average = new double[load.spaces()];
        this.sources = new boolean[load.spaces()];
        this.targetTicks = new int[load.spaces()];
        this.lastTick = nowNanos;
        for (int space = 0; space < load.spaces(); space++) {
            busyAtTick[space] = load.busyNanos(space);
        }
    }

    /**
     * Averages each space's load over the time since the last tick, once at least a second has
     * passed, names the sources and gives the coming second its budget (unused budget does not
     * carry over). {@code nextSequence}: the use the writer's next record goes into now. Writer thread.
     */
    public void tick(long nowNanos, long nextSequence) {
        long elapsed = nowNanos - lastTick;
        if (elapsed < SECOND) {
            return;
        }
        lastTick = nowNanos;
        int slot = ticks % SETTLE_SECONDS;
        // Before SETTLE_SECONDS ticks, 0: nothing is settled yet.
        settledBelow = ticks >= SETTLE_SECONDS ? sequencesAtTicks[slot] : 0;
        sequencesAtTicks[slot] = nextSequence;
        ticks++;
        double least = Double.MAX_VALUE;
        int measured = 0;
        for (int space = 0; space < average.length; space++) {
            long busy = load.busyNanos(space);
            double inFlight = (double) (busy - busyAtTick[space]) / elapsed;
            busyAtTick[space] = busy;
            average[space] = averaged ? average[space] + WEIGHT * (inFlight - average[space]) : inFlight;
            if (inUse.test(space)) {
                least = Math.min(least, average[space]);
                measured++;
            }
        }
        averaged = true;
        boolean[] next = new boolean[average.length];
        double leastSource = Double.MAX_VALUE;
        for (int space = 0; space < average.length && measured > 1; space++) {
            next[space] = inUse.test(space) && average[space] >= MIN_IN_FLIGHT && average[space] > LOADED_RATIO * least;
            if (next[space]) {
                leastSource = Math.min(leastSource, average[space]);
            }
        }
        sources = next;
        // Each space that every source's chunks may move to counts its ticks as such in a row.
        for (int space = 0; space < average.length; space++) {
            boolean eligible = leastSource != Double.MAX_VALUE && inUse.test(space) && !next[space]
                    && leastSource > LOADED_RATIO * average[space];
            targetTicks[space] = eligible ? targetTicks[space] + 1 : 0;
        }
        budget.set(bytesPerSecond);
    }

    /**
     * Whether a hit of {@code bytes} just read from {@code space}, from a record of segment use
     * {@code sequence}, is to be moved: the space is a source, the record was written at least
     * {@link #SETTLE_SECONDS} ago, and this second's budget has room (taken from it). Any thread.
     */
    public boolean take(int space, long sequence, int bytes) {
        if (!sources[space] || sequence >= settledBelow) {
            return false;
        }
        if (budget.addAndGet(-bytes) < 0) {
            budget.addAndGet(bytes);
            return false;
        }
        taken.increment();
        return true;
    }

    /**
     * Whether {@code target} is in use and its average load {@link #LOADED_RATIO} times less than
     * {@code source}'s. Writer thread.
     */
    public boolean lessLoaded(int target, int source) {
        return target != source && inUse.test(target) && average[source] > LOADED_RATIO * average[target];
    }

    /**
     * The space the moves make room in when it is full: of the spaces every source's chunks may move
     * to (in use, not a source, loaded {@link #LOADED_RATIO} times less than each source) at each of
     * the last {@link #SETTLE_SECONDS} ticks, the least loaded now; -1 when none. Giving up its
     * coldest chunks is worth it only for an imbalance that lasts: a swing of the loads, which the
     * moves themselves may cause, must not make room on each side in turn; and two healthy devices
     * that swap places as the least loaded tick by tick are both targets. Writer thread.
     */
    public int target() {
        int best = -1;
        for (int space = 0; space < targetTicks.length; space++) {
            if (targetTicks[space] >= SETTLE_SECONDS && (best == -1 || average[space] < average[best])) {
                best = space;
            }
        }
        return best;
    }

    /** Ticks that averaged the loads so far: what the moves decided may have changed since a count seen. Writer thread. */
    public int ticks() {
        return ticks;
    }

    /** Segments of {@code segmentBytes} the moves' budget fills in {@code millis} at most (rounded up). */
    public int segmentsFilledIn(long millis, int segmentBytes) {
        double bytes = (double) bytesPerSecond * millis / 1000;
        return (int) Math.min(Integer.MAX_VALUE, Math.ceil(bytes / segmentBytes));
    }

    /** Whether hits read from {@code space} are moved now. */
    public boolean source(int space) {
        return sources[space];
    }

    /** Hits taken to be moved so far. */
    public long taken() {
        return taken.sum();
    }
}

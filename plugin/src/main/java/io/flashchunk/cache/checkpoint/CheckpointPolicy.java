package io.flashchunk.cache.checkpoint;

import java.util.function.LongSupplier;

/**
 * Decides when the next checkpoint is due; the only owner of that decision.
 *
 * <p>A crash brings back what the newest durable checkpoint names: the chunks written since are what
 * a crash loses, and runs evicted since wait for the next checkpoint before they are reused. So the
 * clock alone is the wrong measure (a cache filling after a start, or after a compaction, would lose
 * minutes of fills to a crash), and so is writing a checkpoint of an index that did not change. A
 * checkpoint is due when, since the last one started:
 * <ul>
 *   <li>the changes (chunks written, moved or removed) reach {@code changeShare} of the cached
 *       chunks; or</li>
 *   <li>the interval has passed and anything changed; or</li>
 *   <li>one was asked for early (evicted runs waiting for a checkpoint fill half the reserve);</li>
 * </ul>
 * and never sooner than the minimum interval after the last attempt (the first counts from start-up).
 * A failed checkpoint counts as an attempt but not as a checkpoint: the changes it would have covered
 * stay due, and each failure in a row doubles the wait before the next try (from at least a second,
 * up to the interval), so a failing device is not hammered.
 *
 * <p>Changes are a running total the caller keeps (a sum of counters); the policy remembers the
 * total when the last successful checkpoint started. Thread-safe.
 */
public final class CheckpointPolicy {
    private static final long MIN_RETRY_NANOS = 1_000_000_000L;

    private final long intervalNanos;
    private final long minIntervalNanos;
    private final double changeShare;
    private final LongSupplier clock;
    private long lastAttemptNanos;
    private long changesCovered;
    private boolean earlyRequested;
    private int failuresInARow;

    /**
     * @param changeShare share of the cached chunks whose change makes a checkpoint due (0: only
     *                    the interval and early requests do)
     * @param clock       System::nanoTime, or a test's clock
     * @param changesNow  the running total of changes at start-up (the recovered checkpoint covers them)
     */
    public CheckpointPolicy(long intervalNanos, long minIntervalNanos, double changeShare, LongSupplier clock,
                            long changesNow) {
        if (intervalNanos <= 0 || minIntervalNanos < 0 || !(changeShare >= 0 && changeShare <= 1)) {
            throw new IllegalArgumentException("interval " + intervalNanos + " ns, minimum interval " + minIntervalNanos
                    + " ns, change share " + changeShare);
        }
        this.intervalNanos = intervalNanos;
        this.minIntervalNanos = minIntervalNanos;
        this.changeShare = changeShare;
        this.clock = clock;
        this.lastAttemptNanos = clock.getAsLong();
        this.changesCovered = changesNow;
    }

    /** Whether a checkpoint is due now, given the running total of changes and the cached chunks. */
    public synchronized boolean due(long changesNow, long entries) {
        long since = clock.getAsLong() - lastAttemptNanos;
        if (since < minIntervalNanos || since < retryDelayNanos()) {
            return false;
        }
        long changed = changesNow - changesCovered;
        if (earlyRequested) {
            return true;
        }
        if (changed <= 0) {
            return false;
        }
        return since >= intervalNanos || (changeShare > 0 && changed >= changeShare * Math.max(1, entries));
    }

    private long retryDelayNanos() {
        if (failuresInARow == 0) {
            return 0;
        }
        long first = Math.max(MIN_RETRY_NANOS, minIntervalNanos);
        return Math.min(intervalNanos, first << Math.min(failuresInARow - 1, 30));
    }

    /** Changes the newest durable checkpoint does not cover, given the running total now. */
    public synchronized long changesSince(long changesNow) {
        return Math.max(0, changesNow - changesCovered);
    }

    /** Asks for a checkpoint as soon as the minimum interval allows. */
    public synchronized void requestEarly() {
        earlyRequested = true;
    }

    /** A checkpoint that started with a running total of changes, and whether it was asked for early. */
    public record Attempt(long changes, boolean early) {
    }

    /** A checkpoint starts now, with this running total of changes. */
    public synchronized Attempt start(long changesNow) {
        lastAttemptNanos = clock.getAsLong();
        Attempt attempt = new Attempt(changesNow, earlyRequested);
        earlyRequested = false;
        return attempt;
    }

    /**
     * The attempt ended: if durable, it covers the changes up to its start; if not, nothing new is
     * covered and an early request it carried stands.
     */
    public synchronized void finished(Attempt attempt, boolean durable) {
        if (durable) {
            changesCovered = Math.max(changesCovered, attempt.changes());
            failuresInARow = 0;
        } else {
            earlyRequested |= attempt.early();
            failuresInARow++;
        }
    }
}

package io.flashchunk.cache.health;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops the cache from reading a flash device that has become slower than the reads it replaces,
 * and tries it again later: the slow-device breaker.
 *
 * <p>Every hit's read on the device is recorded with its time (a failed or timed-out read with the
 * time it cost). Once a period has passed and at least {@link #MIN_SAMPLES} reads were recorded, the
 * period is judged: the device is <em>slow</em> when its median read is above both the slow-read
 * floor (so a fast device is never judged against misses the page cache serves in microseconds) and
 * the mean read of a miss ({@link MissReads}; while that is unknown nothing is slow), and
 * <em>failing</em> when at least a quarter of its reads failed. The median, and two such periods in a
 * row, keep a pause of the whole process (a GC) from passing for a slow device. That trips the
 * breaker: {@link #allowRead} says no until the retry time has passed, then lets reads through again
 * as a probe, and the next judged period closes the breaker or trips it again. Trips and recoveries
 * are logged and counted.
 *
 * <p>Reads in the caller's thread cannot be abandoned once the system call is made, so they are
 * announced ({@link #callerReadStarted}); while one has been outstanding longer than the read
 * timeout the device is hung, the breaker trips, and no new one starts.
 *
 * <p>Thread-safe; recording a read takes no lock (a recorder and adders), and one reader judges a
 * finished period while the others go on. The clock is injected: tests drive it without sleeping.
 */
public final class DeviceBreaker {
    /** Reads a period needs before it is judged. */
    public static final int MIN_SAMPLES = 16;
    /** The share of failed reads that trips the breaker. */
    public static final double FAILING_SHARE = 0.25;
    private static final Logger LOG = LoggerFactory.getLogger(DeviceBreaker.class);

    private enum State { CLOSED, OPEN, PROBING }

    private final String device;
    private final LongSupplier clock;
    private final MissReads misses;
    private final long periodNanos;
    private final long slowFloorNanos;
    private final long retryNanos;
    private final long hungNanos;
    private final ConcurrentHashMap<Thread, Long> callerReads = new ConcurrentHashMap<>();
    private final LongAdder trips = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final AtomicLong openUntil = new AtomicLong();
    private volatile State state = State.CLOSED;
    // The period being recorded: lock-free on the read path; judged under this object's lock.
    private final Recorder periodReads = new Recorder(3);
    private final LongAdder reads = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final AtomicBoolean judging = new AtomicBoolean();
    private volatile long periodStart;
    private Histogram interval;
    private int badPeriods;

    /**
     * @param device         the device's name in log lines
     * @param periodNanos    the shortest period judged
     * @param slowFloorNanos a median read at or below this is never slow
     * @param retryNanos     how long a tripped breaker keeps the device out of use
     * @param hungNanos      a caller-thread read outstanding this long means the device is hung
     */
    public DeviceBreaker(String device, LongSupplier clock, MissReads misses, long periodNanos, long slowFloorNanos,
            long retryNanos, long hungNanos) {
        this.device = device;
        this.clock = clock;
        this.misses = misses;
        this.periodNanos = periodNanos;
        this.slowFloorNanos = slowFloorNanos;
        this.retryNanos = retryNanos;
        this.hungNanos = hungNanos;
        this.periodStart = clock.getAsLong();
    }

    /** Whether a hit may read the device now; a refused hit is a miss. */
    public boolean allowRead() {
        State s = state;
        if (s == State.OPEN) {
            if (clock.getAsLong() - openUntil.get() < 0) {
                refused.increment();
                return false;
            }
            probe();
        }
        return true;
    }

    /** A read of the device finished (or failed, or was given up) after {@code nanos}. */
    public void recordRead(long nanos, boolean failed) {
        if (state == State.OPEN) {
            return; // a read started before the trip: it judges nothing new
        }
        periodReads.recordValue(Math.max(1, nanos));
        reads.increment();
        if (failed) {
            failures.increment();
        }
        long now = clock.getAsLong();
        // One reader judges a finished period; the others go on (hits must not queue behind it).
        if (now - periodStart >= periodNanos && reads.sum() >= MIN_SAMPLES && judging.compareAndSet(false, true)) {
            try {
                synchronized (this) {
                    if (now - periodStart >= periodNanos && state != State.OPEN) {
                        judge(now);
                    }
                }
            } finally {
                judging.set(false);
            }
        }
    }

    /**
     * Announces a read in the calling thread; false if the device is hung (a caller read has been
     * outstanding too long: the breaker trips) or bypassed, and the read must not start. After true,
     * {@link #callerReadEnded} must follow.
     */
    public boolean callerReadStarted() {
        if (!allowRead()) {
            return false;
        }
        long now = clock.getAsLong();
        for (long started : callerReads.values()) {
            if (now - started > hungNanos) {
                refused.increment();
                trip(now, "a read in a reader's thread has not returned for "
                        + TimeUnit.NANOSECONDS.toMillis(now - started) + " ms: the device may be hung");
                return false;
            }
        }
        callerReads.put(Thread.currentThread(), now);
        return true;
    }

    /** The calling thread's announced read returned; it is recorded like any read. */
    public void callerReadEnded(boolean failed) {
        Long started = callerReads.remove(Thread.currentThread());
        if (started != null) {
            recordRead(clock.getAsLong() - started, failed);
        }
    }

    /** Whether the device is out of use now (tripped and not yet probing). */
    public boolean bypassed() {
        return state == State.OPEN && clock.getAsLong() - openUntil.get() < 0;
    }

    /** How many times the breaker tripped. */
    public long trips() {
        return trips.sum();
    }

    /** Hits that were misses because the device was out of use. */
    public long refusedReads() {
        return refused.sum();
    }

    private synchronized void probe() {
        if (state == State.OPEN && clock.getAsLong() - openUntil.get() >= 0) {
            state = State.PROBING;
            startPeriod(clock.getAsLong());
            LOG.info("flash cache: trying device {} again", device);
        }
    }

    /** Called with the lock held, at the end of a period with enough reads. */
    private void judge(long now) {
        interval = periodReads.getIntervalHistogram(interval);
        long reads = Math.max(1, interval.getTotalCount());
        long failures = this.failures.sum();
        long median = interval.getValueAtPercentile(50);
        double missMean = misses.meanNanos();
        boolean slow = median > slowFloorNanos && !Double.isNaN(missMean) && median > missMean;
        boolean failing = failures >= FAILING_SHARE * reads;
        String measured = String.format("%,d reads in the last %.1f s took %.2f ms (median) and %d failed; a miss's "
                + "read takes %s", reads, (now - periodStart) / 1e9, median / 1e6, failures,
                Double.isNaN(missMean) ? "an unknown time (too few misses)" : String.format("%.2f ms", missMean / 1e6));
        if (slow || failing) {
            if (state == State.PROBING || ++badPeriods >= 2) {
                trip(now, measured);
            } else {
                startPeriod(now);
            }
            return;
        }
        badPeriods = 0;
        if (state == State.PROBING) {
            state = State.CLOSED;
            LOG.info("flash cache: device {} is in use again: {}", device, measured);
        }
        startPeriod(now);
    }

    private synchronized void trip(long now, String why) {
        if (state == State.OPEN) {
            return;
        }
        openUntil.set(now + retryNanos);
        state = State.OPEN;
        badPeriods = 0;
        trips.increment();
        startPeriod(now);
        LOG.warn("flash cache: device {} is bypassed for {} s (hits read the SSTables instead): {}", device,
                TimeUnit.NANOSECONDS.toSeconds(retryNanos), why);
    }

    private void startPeriod(long now) {
        periodStart = now;
        reads.reset();
        failures.reset();
        periodReads.reset();
    }
}

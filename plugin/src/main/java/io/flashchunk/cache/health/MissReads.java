package io.flashchunk.cache.health;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * How long the reads the cache replaces take: the file reads (and decompression) of misses, as the
 * caller times them. Recording is lock-free; {@link #meanNanos} turns what came since its last call
 * into a running mean, at most once per period, so a quiet period (a warm cache misses little)
 * keeps the last known mean instead of forgetting it.
 */
public final class MissReads {
    /** Fewer misses than this in a period tell too little to move the mean. */
    static final int MIN_SAMPLES = 8;

    private final LongAdder count = new LongAdder();
    private final LongAdder nanos = new LongAdder();
    private final LongSupplier clock;
    private final long periodNanos;
    private long rolledAt;
    private long rolledCount;
    private long rolledNanos;
    private double mean = Double.NaN;

    public MissReads(LongSupplier clock, long periodNanos) {
        this.clock = clock;
        this.periodNanos = periodNanos;
        this.rolledAt = clock.getAsLong();
    }

    /** A miss whose file read took {@code readNanos}. */
    public void record(long readNanos) {
        if (readNanos > 0) {
            count.increment();
            nanos.add(readNanos);
        }
    }

    /** The running mean of a miss's read, in nanoseconds; NaN until enough misses were seen. */
    synchronized double meanNanos() {
        long now = clock.getAsLong();
        if (now - rolledAt >= periodNanos) {
            long c = count.sum();
            long n = nanos.sum();
            long newCount = c - rolledCount;
            if (newCount >= MIN_SAMPLES) {
                double periodMean = (double) (n - rolledNanos) / newCount;
                mean = Double.isNaN(mean) ? periodMean : (mean + periodMean) / 2;
                rolledCount = c;
                rolledNanos = n;
                rolledAt = now;
            }
        }
        return mean;
    }
}

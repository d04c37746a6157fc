package io.flashchunk.cache;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The cache's own live counters, what {@code get} and {@code put} see (the engine keeps its own:
 * {@link io.flashchunk.cache.engine.EngineStats}); recording is lock-free.
 * {@link SegmentFlashCache#stats()} snapshots them.
 */
final class CacheMetrics {
    final LongAdder dramHits = new LongAdder();
    /** Hits read from a segment buffer (not yet on flash). */
    final LongAdder memoryHits = new LongAdder();
    /** Hits read from flash, followers included. */
    final LongAdder flashHits = new LongAdder();
    final LongAdder misses = new LongAdder();
    final LongAdder puts = new LongAdder();
    final LongAdder uncacheable = new LongAdder();
    final LongAdder followersServed = new LongAdder();
    final LongAdder getFailures = new LongAdder();
    final LongAdder putFailures = new LongAdder();
    private final Recorder flashHitRecorder = new Recorder(3);
    private final Histogram flashHitTotal = new Histogram(3);
    private Histogram flashHitInterval;
    private final RecentLatency recentHits;
    private final LongAdder[] hitReads;
    private final LongAdder[] failedHitReads;

    /** @param clock the cache's clock, nanoseconds */
    CacheMetrics(int spaces, LongSupplier clock) {
        this.recentHits = new RecentLatency(clock, TimeUnit.SECONDS.toNanos(10));
        this.hitReads = adders(spaces);
        this.failedHitReads = adders(spaces);
    }

    private static LongAdder[] adders(int count) {
        LongAdder[] adders = new LongAdder[count];
        for (int i = 0; i < count; i++) {
            adders[i] = new LongAdder();
        }
        return adders;
    }

    /** A follower of an earlier hit was served: a flash hit that cost no read of its own. */
    void followerServed() {
        flashHits.increment();
        followersServed.increment();
    }

    void recordHit(long nanos) {
        flashHitRecorder.recordValue(Math.max(1, nanos));
        recentHits.record(nanos);
    }

    /** A hit's flash read of {@code space} ended. */
    void recordHitRead(int space, boolean failed) {
        (failed ? failedHitReads : hitReads)[space].increment();
    }

    long hitReads(int space) {
        return hitReads[space].sum();
    }

    long failedHitReads(int space) {
        return failedHitReads[space].sum();
    }

    /** The latency of the hits of about the last minute (see {@link RecentLatency}). */
    Histogram recentHitLatency() {
        return recentHits.window();
    }

    /** Every flash hit's latency so far (folds in those recorded since the last call). */
    synchronized Histogram flashHitLatency() {
        flashHitInterval = flashHitRecorder.getIntervalHistogram(flashHitInterval);
        flashHitTotal.add(flashHitInterval);
        return flashHitTotal.copy();
    }
}

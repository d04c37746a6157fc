package io.flashchunk.cache;

import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/** Live counters of the cache; recording is lock-free. {@link CompactChunkCache#stats()} snapshots them. */
public final class CacheMetrics {
    public final LongAdder memoryHits = new LongAdder();
    public final LongAdder dramHits = new LongAdder();
    public final LongAdder flashHits = new LongAdder();
    public final LongAdder misses = new LongAdder();
    public final LongAdder puts = new LongAdder();
    public final LongAdder putsAlreadyCached = new LongAdder();
    public final LongAdder uncacheable = new LongAdder();
    public final LongAdder droppedQueueFull = new LongAdder();
    public final LongAdder droppedEvictedBeforeWrite = new LongAdder();
    public final LongAdder droppedNoSpace = new LongAdder();
    public final LongAdder flashBytesRead = new LongAdder();
    public final LongAdder flashBytesWritten = new LongAdder();
    public final LongAdder flashWrites = new LongAdder();
    public final LongAdder checksumErrors = new LongAdder();
    public final LongAdder readErrors = new LongAdder();
    public final LongAdder writeErrors = new LongAdder();
    public final LongAdder readTimeouts = new LongAdder();
    public final LongAdder staleReads = new LongAdder();
    public final LongAdder evictions = new LongAdder();
    public final LongAdder invalidations = new LongAdder();
    public final LongAdder migrations = new LongAdder();
    public final LongAdder readAheads = new LongAdder();
    public final LongAdder pairedReads = new LongAdder();
    public final LongAdder followersServed = new LongAdder();

    /** A follower of an earlier hit was served: a flash hit that cost no read of its own. */
    void followerServed() {
        flashHits.increment();
        followersServed.increment();
    }
    public final LongAdder checkpoints = new LongAdder();
    public final LongAdder checkpointFailures = new LongAdder();
    private final Recorder flashHitRecorder = new Recorder(3);
    private final Histogram flashHitTotal = new Histogram(3);
    private Histogram flashHitInterval;

    void recordFlashHit(long nanos) {
        flashHitRecorder.recordValue(Math.max(1, nanos));
    }

    synchronized Histogram flashHitLatency() {
        flashHitInterval = flashHitRecorder.getIntervalHistogram(flashHitInterval);
        flashHitTotal.add(flashHitInterval);
        return flashHitTotal.copy();
    }
}

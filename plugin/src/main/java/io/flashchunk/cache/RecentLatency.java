package io.flashchunk.cache;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Latencies of about the last minute, for percentiles a dashboard plots over time (a histogram since
 * start says little about now after the first hour): {@link #SLOTS} histograms of {@code slotNanos}
 * each, the newest filled as values come. Recording never waits: the first value recorded in a new
 * slot files the values recorded before it under the slot they were recorded in (unless another
 * thread holds the lock, which then does it), so a value lands in its own slot unless it races with
 * that change.
 */
final class RecentLatency {
    static final int SLOTS = 6;

    private final Recorder recorder = new Recorder(3);
    private final LongSupplier clock;
    private final long slotNanos;
    private final Histogram[] slots = new Histogram[SLOTS];
    private final long[] slotNumbers = new long[SLOTS];
    /** The slot the recorder's values since its last collection belong to. */
    private volatile long currentSlot;
    private Histogram interval;
    private final ReentrantLock lock = new ReentrantLock();

    /** @param clock nanoseconds, the cache's clock */
    RecentLatency(LongSupplier clock, long slotNanos) {
        if (slotNanos < 1) {
            throw new IllegalArgumentException("slot length must be positive: " + slotNanos);
        }
        this.clock = clock;
        this.slotNanos = slotNanos;
        for (int i = 0; i < SLOTS; i++) {
            slots[i] = new Histogram(3);
            slotNumbers[i] = Long.MIN_VALUE;
        }
        this.currentSlot = Math.floorDiv(clock.getAsLong(), slotNanos);
    }

    void record(long nanos) {
        long slot = Math.floorDiv(clock.getAsLong(), slotNanos);
        if (slot > currentSlot && lock.tryLock()) {
            try {
                if (slot > currentSlot) { // not done by another thread meanwhile
                    collect(slot);
                }
            } finally {
                lock.unlock();
            }
        }
        recorder.recordValue(Math.max(1, nanos));
    }

    /** The values of the last {@link #SLOTS} slots, the current one included. */
    Histogram window() {
        lock.lock();
        try {
            long now = Math.floorDiv(clock.getAsLong(), slotNanos);
            collect(now);
            Histogram window = new Histogram(3);
            for (int i = 0; i < SLOTS; i++) {
                if (slotNumbers[i] > now - SLOTS && slotNumbers[i] <= now) {
                    window.add(slots[i]);
                }
            }
            return window;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: files what was recorded so far under the current slot, then makes {@code slot} current. */
    private void collect(long slot) {
        long filed = currentSlot;
        interval = recorder.getIntervalHistogram(interval);
        int at = (int) Math.floorMod(filed, (long) SLOTS);
        if (slotNumbers[at] != filed) {
            slots[at].reset();
            slotNumbers[at] = filed;
        }
        slots[at].add(interval);
        if (slot > filed) {
            currentSlot = slot;
        }
    }
}

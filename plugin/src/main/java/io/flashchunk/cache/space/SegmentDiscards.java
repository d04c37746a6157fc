package io.flashchunk.cache.space;

import io.flashchunk.cache.WarningThrottle;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.device.BlockDevice;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discards (TRIMs) each segment that becomes free, on a thread of its own, so that the drive can erase
 * its blocks ahead of the next write instead of moving them around as live data; the writer never
 * waits on a discard it does not need ({@link SegmentTable#discardFreed}). A discard is advice: a
 * device that cannot discard (a file system without hole punching, a drive without TRIM) is left
 * alone from its first refusal, with one log line, and a failed discard still frees its segment,
 * since the writer rewrites every byte of a segment it reads back.
 */
public final class SegmentDiscards implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentDiscards.class);

    private final SegmentTable table;
    private final AddressSpaces spaces;
    private final boolean[] refused;
    private final Thread thread;
    private final AtomicLong discarded = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong nanos = new AtomicLong();
    private final WarningThrottle failures = new WarningThrottle(1, TimeUnit.MINUTES);
    /** Segments handed back to the writer: discarded, failed, or passed over (a device that cannot). */
    private long ended;

    /**
     * Starts the thread; the table must already {@link SegmentTable#discardFreed discard freed
     * segments}. Spaces not marked in {@code perSpace} are not discarded (their segments pass through).
     */
    public SegmentDiscards(SegmentTable table, AddressSpaces spaces, boolean[] perSpace) {
        if (perSpace.length != spaces.count()) {
            throw new IllegalArgumentException(perSpace.length + " discard settings for " + spaces.count() + " spaces");
        }
        this.table = table;
        this.spaces = spaces;
        this.refused = new boolean[spaces.count()];
        for (int space = 0; space < refused.length; space++) {
            refused[space] = !perSpace[space];
        }
        this.thread = new Thread(this::run, "flashchunk-discards");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (true) {
            int segment;
            try {
                segment = table.awaitToDiscard();
            } catch (InterruptedException e) {
                return; // close()
            }
            try {
                discard(segment);
            } finally {
                table.discardEnded(segment);
                synchronized (this) {
                    ended++;
                    notifyAll();
                }
            }
        }
    }

    private void discard(int segment) {
        int space = table.space(segment);
        if (refused[space]) {
            return;
        }
        SegmentLayout layout = spaces.layout(space);
        BlockDevice device = spaces.driver(space).device();
        long blocks = layout.segmentBytes() / BlockDevice.BLOCK_SIZE;
        long started = System.nanoTime();
        try {
            if (device.discard(layout.lba(table.index(segment)), blocks)) {
                discarded.incrementAndGet();
                nanos.addAndGet(System.nanoTime() - started);
            } else {
                refused[space] = true;
                LOG.info("flash device {} cannot discard (TRIM): its free segments are reused without it",
                        device.path());
            }
        } catch (java.io.IOException | RuntimeException e) {
            failed.incrementAndGet();
            failures.warn(LOG, "flash cache: a discard of a free segment failed ({}); the segment is reused all the same",
                    device.path() + ": " + e);
        }
    }

    /** Segments handed back to the writer so far, whether their discard worked, failed or was not made. */
    public synchronized long ended() {
        return ended;
    }

    /** Waits until {@link #ended} reaches {@code count}, at most {@code timeout}; whether it did. */
    public synchronized boolean awaitEnded(long count, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (long left = unit.toNanos(timeout); ended < count; left = deadline - System.nanoTime()) {
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    /** Segments discarded so far. */
    public long discarded() {
        return discarded.get();
    }

    /** Discards that failed (the segments were freed all the same). */
    public long failed() {
        return failed.get();
    }

    /** Time spent in discards that ended well, in nanoseconds. */
    public long nanos() {
        return nanos.get();
    }

    /**
     * Stops taking segments and waits up to {@code millis} for a discard in progress to end; a
     * segment still waiting stays {@link SegmentState#DISCARDING}, which only a restart frees.
     */
    public void close(long millis) throws InterruptedException {
        thread.interrupt();
        thread.join(millis);
        if (thread.isAlive()) {
            LOG.warn("flash cache: a discard did not end within {} ms of the close", millis);
        }
    }

    @Override
    public void close() throws InterruptedException {
        close(TimeUnit.SECONDS.toMillis(10));
    }
}

package io.flashchunk.cache.space;

import io.flashchunk.cache.WarningThrottle;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.device.BlockDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discards (TRIMs) each segment that becomes free, so that the drive can erase its blocks ahead of
 * the next write instead of moving them around as live data. One thread a discarding space, so a
 * drive whose discard is slow or hangs holds back only its own segments; the writer never waits on
 * a discard it does not need ({@link SegmentTable#discardFreed}). A discard is advice: a device
 * that cannot discard (a file system without hole punching, a drive without TRIM) is left alone from
 * its first refusal, with one log line, and a discard that fails, whatever the failure, still frees
 * its segment, since the writer rewrites every byte of a segment it reads back.
 */
public final class SegmentDiscards implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentDiscards.class);

    private final SegmentTable table;
    private final AddressSpaces spaces;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong discarded = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong nanos = new AtomicLong();
    private final WarningThrottle failures = new WarningThrottle(1, TimeUnit.MINUTES);
    /** Segments handed back to the writer: discarded, failed, or passed over (a device that cannot). */
    private long ended;

    /**
     * Marks in the table the spaces in {@code perSpace} as discarding their freed segments, and starts
     * a thread for each. Before the writer starts.
     */
    public SegmentDiscards(SegmentTable table, AddressSpaces spaces, boolean[] perSpace) {
        if (perSpace.length != spaces.count()) {
            throw new IllegalArgumentException(perSpace.length + " discard settings for " + spaces.count() + " spaces");
        }
        this.table = table;
        this.spaces = spaces;
        table.discardFreed(perSpace);
        for (int space = 0; space < perSpace.length; space++) {
            if (perSpace[space]) {
                int s = space;
                Thread thread = new Thread(() -> run(s), "flashchunk-discards " + spaces.driver(space).path());
                thread.setDaemon(true);
                threads.add(thread);
            }
        }
        threads.forEach(Thread::start);
        for (int space = 0; space < perSpace.length; space++) {
            if (perSpace[space]) {
                LOG.info("flash device {}: discard on: each segment is discarded (TRIM) as it becomes free, {} now",
                        spaces.driver(space).path(), table.discarding(space));
            }
        }
    }

    private void run(int space) {
        while (true) {
            int segment;
            try {
                segment = table.awaitToDiscard(space);
            } catch (InterruptedException e) {
                return; // nothing interrupts it but a JVM going down
            }
            if (segment == -1) {
                return; // stopped
            }
            boolean more = true;
            try {
                more = discard(space, segment);
            } finally {
                table.discardEnded(segment);
                synchronized (this) {
                    ended++;
                    notifyAll();
                }
            }
            if (!more) {
                return;
            }
        }
    }

    /** Discards the segment; false when the device cannot, and the space discards no more. */
    private boolean discard(int space, int segment) {
        SegmentLayout layout = spaces.layout(space);
        BlockDevice device = spaces.driver(space).device();
        long blocks = layout.segmentBytes() / BlockDevice.BLOCK_SIZE;
        long started = System.nanoTime();
        try {
            if (device.discard(layout.lba(table.index(segment)), blocks)) {
                discarded.incrementAndGet();
                nanos.addAndGet(System.nanoTime() - started);
                return true;
            }
            table.stopDiscarding(space);
            LOG.info("flash device {} cannot discard (TRIM): its free segments are reused without it", device.path());
            return false;
        } catch (Throwable e) {
            // Whatever went wrong, the segment is freed and the thread goes on: one left discarding
            // would keep the writer from this space for good.
            failed.incrementAndGet();
            failures.warn(LOG, "flash cache: a discard of a free segment failed ({}); the segment is reused all the same",
                    device.path() + ": " + e);
            return true;
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
     * Hands out no more segments to discard: each thread ends once the discard it is in, if any,
     * returns. Segments still waiting stay {@link SegmentState#DISCARDING}; a restart frees them.
     */
    public void stop() {
        table.stopDiscards();
    }

    /** Waits at most {@code millis} for the threads to end after {@link #stop}; whether they did. */
    public boolean awaitStopped(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (Thread thread : threads) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left > 0) {
                thread.join(left);
            }
            if (thread.isAlive()) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@link #stop}, then waits up to 10 s for a discard in progress to return (a device that hangs
     * in one is closed under it: the discard then fails, and the thread ends).
     */
    @Override
    public void close() throws InterruptedException {
        stop();
        if (!awaitStopped(TimeUnit.SECONDS.toMillis(10))) {
            LOG.warn("flash cache: a discard did not return within 10 s of the close");
        }
    }
}

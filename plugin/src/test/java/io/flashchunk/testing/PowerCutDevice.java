package io.flashchunk.testing;

import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.DeviceStats;
import io.flashchunk.device.IoEngine;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An in-memory device with a volatile write cache, for the power-cut simulator. It works as a device
 * does, and records every write (as it completes) and every flush; afterwards it produces the device
 * image a power cut at any point of that history could have left:
 * <ul>
 *   <li>every write a completed flush covered (it had completed before the flush began);</li>
 *   <li>any subset of the writes completed since, in their order;</li>
 *   <li>and of one of those, maybe only a prefix of its blocks (a torn write: blocks land whole, 4 KiB
 *       at a time, first to last).</li>
 * </ul>
 * A SIGKILL keeps every completed write; a power cut keeps only what was flushed for certain. A
 * discard is recorded as a write of zeros over its blocks.
 * Devices that share a timeline ({@link #of(String, byte[], int, AtomicLong)}) can be cut at one
 * moment together ({@link #cutAt}).
 */
public final class PowerCutDevice implements BlockDevice {
    private record Write(long lba, byte[] bytes) {
    }

    private final byte[] base;
    private final MemoryDevice device;
    private final List<Write> writes = new ArrayList<>();
    // Per event, in order: the writes recorded so far, the writes made durable so far, its time.
    private final List<long[]> events = new ArrayList<>();
    private final AtomicLong timeline;
    private int durableWrites;
    // Drawn from on the device's one completion thread only; set before the volatile bound, read after it.
    private SplittableRandom lateness;
    private volatile long maxLatenessNanos;

    private PowerCutDevice(String path, byte[] image, int queueDepth, AtomicLong timeline) {
        this.base = image.clone();
        this.timeline = timeline;
        this.device = new MemoryDevice(path, image, queueDepth, this::written);
    }

    /** A device holding {@code image}, with no history yet, stamping its events on {@code timeline}. */
    public static PowerCutDevice of(String path, byte[] image, int queueDepth, AtomicLong timeline) {
        return new PowerCutDevice(path, image, queueDepth, timeline);
    }

    public static PowerCutDevice blank(String path, long capacityBlocks, int queueDepth) {
        return blank(path, capacityBlocks, queueDepth, new AtomicLong());
    }

    public static PowerCutDevice blank(String path, long capacityBlocks, int queueDepth, AtomicLong timeline) {
        return of(path, new byte[Math.toIntExact(capacityBlocks * BLOCK_SIZE)], queueDepth, timeline);
    }

    /**
     * From now on each write completes up to {@code maxNanos} later than it would, by {@code seed}'s
     * draw: where the caller's steps fall between completions decides what each cut point holds, so
     * late completions reach histories that prompt ones do not (a long simulation run's option).
     */
    public void completeLate(long maxNanos, long seed) {
        lateness = new SplittableRandom(seed);
        maxLatenessNanos = maxNanos;
    }

    private void written(long lba, byte[] bytes) {
        long late = maxLatenessNanos;
        if (late > 0) {
            LockSupport.parkNanos(lateness.nextLong(late));
        }
        record(lba, bytes);
    }

    private synchronized void record(long lba, byte[] bytes) {
        writes.add(new Write(lba, bytes));
        events.add(new long[] {writes.size(), durableWrites, timeline.getAndIncrement()});
    }

    /** The cut point of this device when the shared timeline reached {@code time}: its events before then. */
    public synchronized int cutAt(long time) {
        int low = 0;
        int high = events.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (events.get(mid)[2] < time) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** Points a power cut may hit: 0 (before anything) to this, after the last write or flush. */
    public synchronized int cutPoints() {
        return events.size();
    }

    /** Writes certainly on the device after a cut at {@code cut}. */
    public synchronized int durableWritesAt(int cut) {
        return cut == 0 ? 0 : (int) events.get(cut - 1)[1];
    }

    /** Writes completed before a cut at {@code cut}. */
    public synchronized int writesAt(int cut) {
        return cut == 0 ? 0 : (int) events.get(cut - 1)[0];
    }

    /**
     * An image a power cut after {@code cut} events could leave, chosen by {@code random}: the
     * durable writes, a random subset of the others, one of which may be torn.
     */
    public synchronized byte[] crashImage(int cut, SplittableRandom random) {
        if (cut < 0 || cut > events.size()) {
            throw new IllegalArgumentException("cut " + cut + " is outside 0.." + events.size());
        }
        byte[] image = base.clone();
        int durable = durableWritesAt(cut);
        int completed = writesAt(cut);
        for (int w = 0; w < durable; w++) {
            apply(image, writes.get(w), writes.get(w).bytes().length / BLOCK_SIZE);
        }
        int torn = completed > durable && random.nextBoolean() ? durable + random.nextInt(completed - durable) : -1;
        for (int w = durable; w < completed; w++) {
            Write write = writes.get(w);
            int blocks = write.bytes().length / BLOCK_SIZE;
            if (w == torn) {
                apply(image, write, random.nextInt(blocks)); // a prefix short of the whole
            } else if (random.nextBoolean()) {
                apply(image, write, blocks);
            }
        }
        return image;
    }

    private static void apply(byte[] image, Write write, int blocks) {
        System.arraycopy(write.bytes(), 0, image, Math.toIntExact(write.lba() * BLOCK_SIZE), blocks * BLOCK_SIZE);
    }

    @Override
    public String path() {
        return device.path();
    }

    @Override
    public IoEngine engine() {
        return device.engine();
    }

    @Override
    public long capacityBlocks() {
        return device.capacityBlocks();
    }

    @Override
    public int queueDepth() {
        return device.queueDepth();
    }

    @Override
    public CompletableFuture<Void> read(long lba, ByteBuffer buffer) {
        return device.read(lba, buffer);
    }

    /** See {@link MemoryDevice#overlappingWrites}. */
    public int overlappingWrites() {
        return device.overlappingWrites();
    }

    @Override
    public CompletableFuture<Void> write(long lba, ByteBuffer buffer) {
        return device.write(lba, buffer);
    }

    /** Zeroes the blocks now; in the history, a write of zeros (kept by a cut only if flushed, else maybe). */
    @Override
    public boolean discard(long lba, long blocks) {
        return device.discard(lba, blocks);
    }

    /** See {@link MemoryDevice#discarded}. */
    public java.util.List<long[]> discarded() {
        return device.discarded();
    }

    /** See {@link MemoryDevice#discardsOverWrites}. */
    public int discardsOverWrites() {
        return device.discardsOverWrites();
    }

    /** Every write completed so far becomes durable. */
    @Override
    public void flush() {
        device.flush();
        synchronized (this) {
            durableWrites = writes.size();
            events.add(new long[] {writes.size(), durableWrites, timeline.getAndIncrement()});
        }
    }

    @Override
    public DeviceStats stats() {
        return device.stats();
    }

    @Override
    public void close() {
        device.close();
    }
}

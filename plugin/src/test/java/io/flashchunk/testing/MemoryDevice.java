package io.flashchunk.testing;

import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.DeviceClosedException;
import io.flashchunk.device.DeviceStats;
import io.flashchunk.device.IoEngine;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import org.HdrHistogram.Histogram;

/**
 * A block device in memory, for tests of what lies above devices: the power-cut simulator's crash
 * images run here. Like a real device it checks its arguments at once and completes every operation
 * on a completion thread of its own, in submission order; a write's bytes are visible to reads once
 * it completes. It keeps no volatile cache: {@link #flush} has nothing to do ({@link PowerCutDevice}
 * is what models one). A discard zeroes its blocks.
 */
public final class MemoryDevice implements BlockDevice {
    private final String path;
    private final byte[] blocks;
    private final int queueDepth;
    private final ExecutorService completions;
    private final BiConsumer<Long, byte[]> onWritten;
    /** Writes accepted and not yet done, as block ranges: two that overlap leave what lands to chance. */
    private final List<long[]> writesInFlight = new ArrayList<>();
    private int overlappingWrites;
    /** Discards made while a write of some of the same blocks was in flight (the contract forbids it). */
    private int discardsOverWrites;
    /** Each discard's block range, in order. */
    private final List<long[]> discarded = new ArrayList<>();
    private volatile boolean closed;

    /** A device holding {@code image} (a whole number of blocks), which it takes over. */
    public MemoryDevice(String path, byte[] image, int queueDepth) {
        this(path, image, queueDepth, (lba, bytes) -> { });
    }

    /** As above; {@code onWritten} hears each write as it completes, on the completion thread, in order. */
    MemoryDevice(String path, byte[] image, int queueDepth, BiConsumer<Long, byte[]> onWritten) {
        if (image.length == 0 || image.length % BLOCK_SIZE != 0) {
            throw new IllegalArgumentException(path + ": an image of " + image.length + " bytes is not whole blocks");
        }
        this.path = path;
        this.blocks = image;
        this.queueDepth = queueDepth;
        this.onWritten = onWritten;
        this.completions = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "memory-device " + path);
            thread.setDaemon(true);
            return thread;
        });
    }

    /** A blank device of {@code capacityBlocks} blocks. */
    public static MemoryDevice blank(String path, long capacityBlocks, int queueDepth) {
        return new MemoryDevice(path, new byte[Math.toIntExact(capacityBlocks * BLOCK_SIZE)], queueDepth);
    }

    /** A copy of every byte on the device now. */
    public synchronized byte[] image() {
        return blocks.clone();
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public IoEngine engine() {
        return IoEngine.THREADPOOL;
    }

    @Override
    public long capacityBlocks() {
        return blocks.length / BLOCK_SIZE;
    }

    @Override
    public int queueDepth() {
        return queueDepth;
    }

    private int offsetOf(long lba, ByteBuffer buffer) {
        int length = buffer.remaining();
        if (length <= 0 || length % BLOCK_SIZE != 0) {
            throw new IllegalArgumentException(path + ": transfer of " + length + " bytes is not whole blocks");
        }
        if (lba < 0 || lba + length / BLOCK_SIZE > capacityBlocks()) {
            throw new IllegalArgumentException(path + ": blocks " + lba + ".." + (lba + length / BLOCK_SIZE - 1)
                    + " are outside 0.." + (capacityBlocks() - 1));
        }
        return Math.toIntExact(lba * BLOCK_SIZE);
    }

    private CompletableFuture<Void> complete(Runnable transfer) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (closed) {
            return CompletableFuture.failedFuture(new DeviceClosedException(path));
        }
        try {
            completions.execute(() -> {
                transfer.run();
                done.complete(null);
            });
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new DeviceClosedException(path));
        }
        return done;
    }

    @Override
    public CompletableFuture<Void> read(long lba, ByteBuffer buffer) {
        int offset = offsetOf(lba, buffer);
        ByteBuffer target = buffer.duplicate();
        return complete(() -> {
            synchronized (this) {
                target.put(blocks, offset, target.remaining());
            }
        });
    }

    @Override
    public CompletableFuture<Void> write(long lba, ByteBuffer buffer) {
        int offset = offsetOf(lba, buffer);
        ByteBuffer source = buffer.duplicate();
        long[] range = {lba, lba + source.remaining() / BLOCK_SIZE};
        synchronized (this) {
            for (long[] other : writesInFlight) {
                if (range[0] < other[1] && other[0] < range[1]) {
                    overlappingWrites++;
                }
            }
            writesInFlight.add(range);
        }
        return complete(() -> {
            byte[] bytes = new byte[source.remaining()];
            source.get(bytes);
            synchronized (this) {
                System.arraycopy(bytes, 0, blocks, offset, bytes.length);
                writesInFlight.remove(range);
            }
            onWritten.accept(lba, bytes);
        });
    }

    /**
     * Writes accepted while another write of some of the same blocks was still in flight: a real
     * device may apply such two in either order, so a caller must wait for the first.
     */
    public synchronized int overlappingWrites() {
        return overlappingWrites;
    }

    /**
     * Zeroes the blocks at once (what a discarded block reads as here), and, to a power-cut history,
     * is a write of zeros: it may or may not have landed if no flush followed it.
     */
    @Override
    public boolean discard(long lba, long count) {
        if (closed) {
            throw new DeviceClosedException(path);
        }
        if (count < 1 || lba < 0 || lba + count > capacityBlocks()) {
            throw new IllegalArgumentException(path + ": discard of blocks " + lba + ".." + (lba + count - 1)
                    + " is outside 0.." + (capacityBlocks() - 1));
        }
        byte[] zeros = new byte[Math.toIntExact(count * BLOCK_SIZE)];
        synchronized (this) {
            for (long[] write : writesInFlight) {
                if (lba < write[1] && write[0] < lba + count) {
                    discardsOverWrites++;
                }
            }
            System.arraycopy(zeros, 0, blocks, Math.toIntExact(lba * BLOCK_SIZE), zeros.length);
            discarded.add(new long[] {lba, count});
        }
        onWritten.accept(lba, zeros);
        return true;
    }

    /** The block ranges discarded so far, each {first block, blocks}, in order. */
    public synchronized List<long[]> discarded() {
        return List.copyOf(discarded);
    }

    /** Discards made while a write of some of the same blocks was in flight: none may be. */
    public synchronized int discardsOverWrites() {
        return discardsOverWrites;
    }

    @Override
    public void flush() {
        if (closed) {
            throw new DeviceClosedException(path);
        }
    }

    @Override
    public DeviceStats stats() {
        return new DeviceStats(0, 0, 0, 0, 0, 0, 0, 0, 0, new Histogram(3), new Histogram(3));
    }

    @Override
    public void close() {
        closed = true;
        completions.shutdown();
    }
}

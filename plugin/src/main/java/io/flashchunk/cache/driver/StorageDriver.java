package io.flashchunk.cache.driver;

import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.DeviceTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The cache's access to one device (the paper's Storage Driver). Reads go straight to the device,
 * whose queue depth caps all parallelism; writes are background work and may hold at most
 * {@code maxWritesInFlight} of its slots, so a burst of cache fills never queues Cassandra's reads
 * behind it.
 *
 * <p>Every wait here is bounded by the device timeout: a hung device makes writes fail, flushes and
 * awaited operations throw {@link DeviceTimeoutException}, and no cache thread is stuck for good. An
 * operation that timed out still owns its buffer until the device lets go of it.
 */
public final class StorageDriver implements AutoCloseable {
    private final BlockDevice device;
    private final Semaphore writeSlots;
    private final int maxWritesInFlight;
    private final long timeoutNanos;
    // The last flush: while one is still stuck in the device, another is pointless and fails at once.
    private volatile CompletableFuture<Void> lastFlush = CompletableFuture.completedFuture(null);
    private volatile long lastFlushStartNanos;

    /** @param timeoutNanos the longest wait for the device (device_timeout_ms) */
    public StorageDriver(BlockDevice device, int maxWritesInFlight, long timeoutNanos) {
        if (maxWritesInFlight < 1) {
            throw new IllegalArgumentException(device.path() + ": writes in flight must be at least 1, got "
                    + maxWritesInFlight);
        }
        if (timeoutNanos <= 0) {
            throw new IllegalArgumentException(device.path() + ": device timeout must be positive, got " + timeoutNanos);
        }
        this.device = device;
        this.maxWritesInFlight = maxWritesInFlight;
        this.writeSlots = new Semaphore(maxWritesInFlight);
        this.timeoutNanos = timeoutNanos;
    }

    public String path() {
        return device.path();
    }

    public long capacityBlocks() {
        return device.capacityBlocks();
    }

    public BlockDevice device() {
        return device;
    }

    public int maxWritesInFlight() {
        return maxWritesInFlight;
    }

    public long timeoutNanos() {
        return timeoutNanos;
    }

    public CompletableFuture<Void> read(long lba, ByteBuffer buffer) {
        return device.read(lba, buffer);
    }

    /** Reads and waits at most {@code timeoutNanos}; see {@link BlockDevice#readWithin}. */
    public CompletableFuture<Void> readWithin(long lba, ByteBuffer buffer, long timeoutNanos) {
        return device.readWithin(lba, buffer, timeoutNanos);
    }

    /** Reads in the calling thread; see {@link BlockDevice#readNow}. */
    public void readNow(long lba, ByteBuffer buffer) throws java.io.IOException {
        device.readNow(lba, buffer);
    }

    /**
     * Starts a write once a write slot is free; blocks the calling (cache) thread until then, at most
     * the device timeout, after which the write fails without starting (every slot held by a device
     * that does not finish its writes).
     */
    public CompletableFuture<Void> write(long lba, ByteBuffer buffer) throws InterruptedException {
        if (!writeSlots.tryAcquire(timeoutNanos, TimeUnit.NANOSECONDS)) {
            return CompletableFuture.failedFuture(new DeviceTimeoutException("no write to " + device.path()
                    + " finished in " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (all " + maxWritesInFlight
                    + " write slots held): the device may be hung"));
        }
        CompletableFuture<Void> write;
        try {
            write = device.write(lba, buffer);
        } catch (RuntimeException e) {
            writeSlots.release();
            throw e;
        }
        return write.whenComplete((ignored, failure) -> writeSlots.release());
    }

    /**
     * Waits for {@code io} at most the device timeout. Its failure is rethrown as it was (an
     * IOException) or wrapped in one naming {@code what}.
     */
    public void await(CompletableFuture<?> io, String what) throws java.io.IOException {
        try {
            io.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new DeviceTimeoutException(what + " on " + device.path() + " did not finish in "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms: the device may be hung");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof java.io.IOException) {
                throw (java.io.IOException) cause;
            }
            throw new java.io.IOException(what + " on " + device.path() + " failed: " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.IOException("interrupted waiting for " + what + " on " + device.path(), e);
        }
    }

    /**
     * Writes {@code buffer} at {@code lba} and waits for it, at most the device timeout: for writes
     * nothing else can go on without (formatting, checkpoints). {@code what} names it in errors.
     */
    public void writeAndWait(long lba, java.nio.ByteBuffer buffer, String what) throws java.io.IOException {
        try {
            await(write(lba, buffer), what);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.IOException("interrupted while waiting to start " + what + " on " + device.path(), e);
        }
    }

    /**
     * Makes completed writes durable ({@link BlockDevice#flush}), waiting at most the device timeout.
     * The flush runs on a thread of its own, so a device that never returns from it holds only that
     * thread; until it returns, every further flush fails at once. One caller at a time: only
     * checkpoints (one at a time, whichever thread writes it) and the format at start flush.
     */
    public void flush() throws java.io.IOException {
        CompletableFuture<Void> previous = lastFlush;
        if (!previous.isDone()) {
            throw new DeviceTimeoutException("a flush of " + device.path() + " started "
                    + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - lastFlushStartNanos)
                    + " s ago has not returned: the device may be hung");
        }
        CompletableFuture<Void> flush = new CompletableFuture<>();
        Thread flusher = new Thread(() -> {
            try {
                device.flush();
                flush.complete(null);
            } catch (Throwable t) {
                flush.completeExceptionally(t);
            }
        }, "flashchunk-flush " + device.path());
        flusher.setDaemon(true);
        lastFlushStartNanos = System.nanoTime();
        lastFlush = flush;
        flusher.start();
        await(flush, "flush");
    }

    /** Writes in flight right now. */
    public int writesInFlight() {
        return maxWritesInFlight - writeSlots.availablePermits();
    }

    @Override
    public void close() {
        device.close();
    }
}

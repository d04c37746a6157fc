package io.flashchunk.device;

import io.flashchunk.buffer.AlignedBuffers;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every device shares: argument checks, the queue-depth cap with a waiting line behind it,
 * counters, and a close that drains accepted requests. Subclasses only move bytes:
 * {@link #dispatch} hands them requests that already hold a queue slot, and they report each
 * outcome exactly once through {@link #complete}.
 */
public abstract class QueuedBlockDevice implements BlockDevice {
    private static final Logger LOG = LoggerFactory.getLogger(QueuedBlockDevice.class);
    private static final long CLOSE_DRAIN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final int MAX_BATCH = 64;
    // 256 MiB: a discard piece a drive finishes well inside the close's drain time.
    private static final long DISCARD_PIECE_BLOCKS = (256L << 20) / BLOCK_SIZE;

    private final String path;
    private final long capacityBlocks;
    private final int queueDepth;
    private final boolean readOnly;
    private final DeviceMetrics metrics = new DeviceMetrics();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ConcurrentLinkedQueue<IoRequest> waiting = new ConcurrentLinkedQueue<>();
    // Requests accepted and not yet completed: close() waits for this to reach zero.
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile boolean closed;
    private volatile AutoCloseable heldUntilClosed;

    protected QueuedBlockDevice(String path, long capacityBlocks, int queueDepth, boolean readOnly) {
        if (capacityBlocks <= 0) {
            throw new IllegalArgumentException(path + ": capacity must be at least one block, got " + capacityBlocks);
        }
        if (queueDepth <= 0) {
            throw new IllegalArgumentException(path + ": queue depth must be positive, got " + queueDepth);
        }
        this.path = path;
        this.capacityBlocks = capacityBlocks;
        this.queueDepth = queueDepth;
        this.readOnly = readOnly;
    }

    @Override
    public final String path() {
        return path;
    }

    @Override
    public final long capacityBlocks() {
        return capacityBlocks;
    }

    @Override
    public final int queueDepth() {
        return queueDepth;
    }

    @Override
    public final CompletableFuture<Void> read(long lba, ByteBuffer buffer) {
        return submit(IoOp.READ, lba, buffer);
    }

    @Override
    public final CompletableFuture<Void> write(long lba, ByteBuffer buffer) {
        if (readOnly) {
            throw new IllegalStateException(path + " is open read-only: no writes");
        }
        return submit(IoOp.WRITE, lba, buffer);
    }

    @Override
    public final void readNow(long lba, ByteBuffer buffer) throws java.io.IOException {
        if (!readsInCallerThread()) {
            BlockDevice.super.readNow(lba, buffer);
            return;
        }
        int blocks = checkedBlocks(IoOp.READ, lba, buffer);
        long address = checkedAddress(buffer);
        // Counted as accepted, so close waits for it before the descriptor goes.
        accepted.incrementAndGet();
        try {
            if (closed) {
                throw new DeviceClosedException(path);
            }
            long start = System.nanoTime();
            try {
                readInCallerThread(lba * BLOCK_SIZE, blocks * BLOCK_SIZE, address);
            } catch (java.io.IOException | RuntimeException e) {
                metrics.recordFailure(IoOp.READ);
                throw e;
            }
            metrics.recordSuccess(IoOp.READ, blocks * BLOCK_SIZE, System.nanoTime() - start);
        } finally {
            accepted.decrementAndGet();
        }
    }

    @Override
    public final CompletableFuture<Void> readWithin(long lba, ByteBuffer buffer, long timeoutNanos) {
        int blocks = checkedBlocks(IoOp.READ, lba, buffer);
        long address = checkedAddress(buffer);
        accepted.incrementAndGet();
        if (closed) {
            accepted.decrementAndGet();
            return CompletableFuture.failedFuture(new DeviceClosedException(path));
        }
        IoRequest request = new IoRequest(IoOp.READ, lba, blocks, buffer, address, System.nanoTime());
        if (readInCallerThread(request, timeoutNanos)) {
            return request.future();
        }
        accepted.decrementAndGet();
        return BlockDevice.super.readWithin(lba, buffer, timeoutNanos);
    }

    /**
     * Reads {@code request} in this thread, waiting at most {@code timeoutNanos}, and reports its
     * outcome through {@link #completeCallerRead} (now, or when a read past its deadline ends); false:
     * this engine cannot, or cannot now, and reported nothing.
     */
    protected boolean readInCallerThread(IoRequest request, long timeoutNanos) {
        return false;
    }

    /** Reports the outcome of a read of {@link #readInCallerThread(IoRequest, long)}; it held no queue slot. */
    protected final void completeCallerRead(IoRequest request, Throwable failure) {
        if (failure == null) {
            metrics.recordSuccess(request.op(), request.bytes(), System.nanoTime() - request.submittedNanos());
            request.future().complete(null);
        } else {
            metrics.recordFailure(request.op());
            request.future().completeExceptionally(failure);
        }
        accepted.decrementAndGet();
    }

    @Override
    public final boolean discard(long lba, long blocks) throws java.io.IOException {
        if (readOnly) {
            throw new IllegalStateException(path + " is open read-only: no discards");
        }
        if (blocks <= 0 || lba < 0 || lba > capacityBlocks - blocks) {
            throw new IllegalArgumentException(path + ": discard of " + blocks + " block(s) at LBA " + lba
                    + " is outside the device (capacity " + capacityBlocks + " blocks)");
        }
        // In pieces, each counted as accepted: a close waits for the piece under way, not for a whole
        // device's discard (minutes on some drives), and the next piece sees the close.
        for (long done = 0; done < blocks; done += DISCARD_PIECE_BLOCKS) {
            long piece = Math.min(DISCARD_PIECE_BLOCKS, blocks - done);
            accepted.incrementAndGet();
            try {
                if (closed) {
                    throw new DeviceClosedException(path);
                }
                if (!discardBytes((lba + done) * BLOCK_SIZE, piece * BLOCK_SIZE)) {
                    return false;
                }
            } finally {
                accepted.decrementAndGet();
            }
        }
        return true;
    }

    /** Discards {@code length} bytes at byte {@code offset}; false: this engine or device cannot. */
    protected boolean discardBytes(long offset, long length) throws java.io.IOException {
        return false;
    }

    /** Whether {@link #readInCallerThread} works here; if not, {@link #readNow} waits for a queued read. */
    protected boolean readsInCallerThread() {
        return false;
    }

    /** Reads {@code length} bytes at byte {@code offset} into memory at {@code address}, in this thread. */
    protected void readInCallerThread(long offset, int length, long address) throws java.io.IOException {
        throw new IllegalStateException(path + ": this engine reads through its queue only");
    }

    @Override
    public final DeviceStats stats() {
        return metrics.snapshot(inFlight.get(), waiting.size());
    }

    private CompletableFuture<Void> submit(IoOp op, long lba, ByteBuffer buffer) {
        int blocks = checkedBlocks(op, lba, buffer);
        long address = checkedAddress(buffer);
        accepted.incrementAndGet();
        if (closed) {
            accepted.decrementAndGet();
            return CompletableFuture.failedFuture(new DeviceClosedException(path));
        }
        IoRequest request = new IoRequest(op, lba, blocks, buffer, address, System.nanoTime());
        if (waiting.isEmpty() && tryTakeSlot()) {
            dispatch(new IoRequest[] {request}, 1);
        } else {
            waiting.offer(request);
            dispatchWaiting();
        }
        return request.future();
    }

    private int checkedBlocks(IoOp op, long lba, ByteBuffer buffer) {
        if (buffer == null) {
            throw new NullPointerException(path + ": " + op.verb() + " buffer is null");
        }
        int length = buffer.remaining();
        if (length <= 0 || length % BLOCK_SIZE != 0) {
            throw new IllegalArgumentException(path + ": " + op.verb() + " length " + length
                    + " bytes is not a positive multiple of the block size " + BLOCK_SIZE);
        }
        int blocks = length / BLOCK_SIZE;
        if (lba < 0 || lba > capacityBlocks - blocks) {
            throw new IllegalArgumentException(path + ": " + op.verb() + " of " + blocks + " block(s) at LBA " + lba
                    + " is outside the device (capacity " + capacityBlocks + " blocks, LBAs 0.." + (capacityBlocks - 1) + ")");
        }
        return blocks;
    }

    private long checkedAddress(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException(path + ": buffer must be a direct ByteBuffer, got a heap buffer");
        }
        long address = AlignedBuffers.address(buffer);
        if (address % BLOCK_SIZE != 0) {
            throw new IllegalArgumentException(path + ": buffer address 0x" + Long.toHexString(address)
                    + " (at position " + buffer.position() + ") is not aligned to " + BLOCK_SIZE + " bytes");
        }
        return address;
    }

    private boolean tryTakeSlot() {
        while (true) {
            int current = inFlight.get();
            if (current >= queueDepth) {
                return false;
            }
            if (inFlight.compareAndSet(current, current + 1)) {
                metrics.observeInFlight(current + 1);
                return true;
            }
        }
    }

    /**
     * Moves waiting requests into free slots, in batches. No request is stranded: whoever adds to the
     * line drains after adding, and whoever frees a slot drains after freeing.
     */
    private void dispatchWaiting() {
        while (!waiting.isEmpty()) {
            IoRequest[] batch = null;
            int count = 0;
            while (count < MAX_BATCH && tryTakeSlot()) {
                IoRequest next = waiting.poll();
                if (next == null) {
                    inFlight.decrementAndGet();
                    break;
                }
                if (batch == null) {
                    batch = new IoRequest[Math.min(MAX_BATCH, queueDepth)];
                }
                batch[count++] = next;
                if (count == batch.length) {
                    break;
                }
            }
            if (count == 0) {
                return;
            }
            dispatch(batch, count);
        }
    }

    /**
     * Starts {@code count} requests, each already holding a queue slot. Must not block for long:
     * it runs on callers' threads and on the completion thread. Each request's outcome must be
     * reported through {@link #complete} exactly once, also when starting it fails.
     */
    protected abstract void dispatch(IoRequest[] batch, int count);

    /** Reports the outcome of a dispatched request: {@code failure} null means success. */
    protected final void complete(IoRequest request, Throwable failure) {
        if (failure == null) {
            metrics.recordSuccess(request.op(), request.bytes(), System.nanoTime() - request.submittedNanos());
        } else {
            metrics.recordFailure(request.op());
        }
        inFlight.decrementAndGet();
        if (failure == null) {
            request.future().complete(null);
        } else {
            request.future().completeExceptionally(failure);
        }
        dispatchWaiting();
        accepted.decrementAndGet();
    }

    @Override
    public final void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        closed = true;
        long deadline = System.nanoTime() + CLOSE_DRAIN_TIMEOUT_NANOS;
        while (accepted.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(100_000);
        }
        boolean drained = accepted.get() == 0;
        if (!drained) {
            LOG.warn("closing {} with {} request(s) still unfinished after {} s: the device may be hung; its "
                    + "descriptor is left open so nothing it still does lands elsewhere", path, accepted.get(),
                    TimeUnit.NANOSECONDS.toSeconds(CLOSE_DRAIN_TIMEOUT_NANOS));
        }
        release(drained);
        AutoCloseable held = heldUntilClosed;
        if (held != null) {
            try {
                held.close();
            } catch (Exception e) {
                LOG.warn("closing {}: {}", path, e.toString());
            }
        }
    }

    /** Closes {@code resource} (the device's lock) once the device is closed and released. */
    public final void holdUntilClosed(AutoCloseable resource) {
        this.heldUntilClosed = resource;
    }

    @Override
    public final void flush() throws java.io.IOException {
        if (closed) {
            throw new DeviceClosedException(path);
        }
        flushWrites();
    }

    /** Makes completed writes durable; see {@link BlockDevice#flush()}. */
    protected abstract void flushWrites() throws java.io.IOException;

    /**
     * Releases what the subclass holds (threads, descriptors); runs once, after the drain. Not
     * {@code drained} (requests still in the device after the drain's time limit), it must not wait
     * for them: a hung device would hang the close (io_destroy, for one, waits for every request).
     */
    protected abstract void release(boolean drained);

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + path + ", " + engine().configName() + ", " + capacityBlocks
                + " blocks, queue depth " + queueDepth + "]";
    }
}

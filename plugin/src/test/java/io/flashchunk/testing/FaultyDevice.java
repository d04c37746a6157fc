package io.flashchunk.testing;

import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.DeviceStats;
import io.flashchunk.device.IoEngine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A device that passes every operation to another and fails the ones a test arms it to fail, as a
 * device that starts returning EIO would. A failed write or flush may still have changed the
 * device (as a real one's may): the operation is carried out, and only its outcome is an error.
 */
public final class FaultyDevice implements BlockDevice {
    /** The operations a fault can be armed on. */
    public enum Op { READ, WRITE, FLUSH }

    private final BlockDevice inner;
    // Per op: operations to let through before failing one (-1: none armed).
    private final AtomicInteger[] untilFault = {new AtomicInteger(-1), new AtomicInteger(-1), new AtomicInteger(-1)};
    private final AtomicInteger injected = new AtomicInteger();

    public FaultyDevice(BlockDevice inner) {
        this.inner = inner;
    }

    /** Fails the {@code n}-th next operation of kind {@code op} (1: the very next), once. */
    public void failNth(Op op, int n) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be at least 1, got " + n);
        }
        untilFault[op.ordinal()].set(n - 1);
    }

    /** How many faults were injected so far. */
    public int injected() {
        return injected.get();
    }

    private boolean faultNow(Op op) {
        AtomicInteger left = untilFault[op.ordinal()];
        while (true) {
            int n = left.get();
            if (n < 0) {
                return false;
            }
            if (left.compareAndSet(n, n - 1)) {
                if (n == 0) {
                    injected.incrementAndGet();
                }
                return n == 0;
            }
        }
    }

    private IOException fault(Op op, long lba) {
        return new IOException("injected EIO: " + op.name().toLowerCase() + (lba < 0 ? "" : " at LBA " + lba) + " on "
                + inner.path());
    }

    @Override
    public String path() {
        return inner.path();
    }

    @Override
    public IoEngine engine() {
        return inner.engine();
    }

    @Override
    public long capacityBlocks() {
        return inner.capacityBlocks();
    }

    @Override
    public int queueDepth() {
        return inner.queueDepth();
    }

    @Override
    public CompletableFuture<Void> read(long lba, ByteBuffer buffer) {
        if (faultNow(Op.READ)) {
            return CompletableFuture.failedFuture(fault(Op.READ, lba));
        }
        return inner.read(lba, buffer);
    }

    @Override
    public void readNow(long lba, ByteBuffer buffer) throws IOException {
        if (faultNow(Op.READ)) {
            throw fault(Op.READ, lba);
        }
        inner.readNow(lba, buffer);
    }

    @Override
    public CompletableFuture<Void> write(long lba, ByteBuffer buffer) {
        boolean fail = faultNow(Op.WRITE);
        CompletableFuture<Void> written = inner.write(lba, buffer);
        return fail ? written.handle((ignored, failure) -> {
            throw new java.util.concurrent.CompletionException(fault(Op.WRITE, lba));
        }) : written;
    }

    @Override
    public void flush() throws IOException {
        boolean fail = faultNow(Op.FLUSH);
        inner.flush();
        if (fail) {
            throw fault(Op.FLUSH, -1);
        }
    }

    @Override
    public DeviceStats stats() {
        return inner.stats();
    }

    @Override
    public void close() {
        inner.close();
    }
}

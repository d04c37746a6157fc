package io.flashchunk.testing;

import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.DeviceStats;
import io.flashchunk.device.IoEngine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A device that passes every operation to another and fails or holds the ones a test arms it to, as
 * a device that starts returning EIO, or hangs, would. A failed write or flush may still have changed
 * the device (as a real one's may): the operation is carried out, and only its outcome is an error.
 * A held operation is not started until its gate opens; its buffer stays untouched until then.
 * It can also add latency (on a test's clock), fail every operation of a kind, and return stale bytes.
 */
public final class FaultyDevice implements BlockDevice {
    /** The operations a fault can be armed on. */
    public enum Op { READ, WRITE, FLUSH, DISCARD }

    private final BlockDevice inner;
    // Per op: operations to let through before failing one (-1: none armed).
    private final AtomicInteger[] untilFault = {new AtomicInteger(-1), new AtomicInteger(-1), new AtomicInteger(-1),
        new AtomicInteger(-1)};
    private final AtomicInteger injected = new AtomicInteger();
    // Per op: the gate operations wait behind while the device hangs (null: not hanging).
    private final java.util.concurrent.atomic.AtomicReferenceArray<CompletableFuture<Void>> hangs =
            new java.util.concurrent.atomic.AtomicReferenceArray<>(Op.values().length);
    private final AtomicInteger held = new AtomicInteger();
    // Per block: what the last write while stale reads were on overwrote.
    private final java.util.concurrent.ConcurrentHashMap<Long, byte[]> overwritten = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean stale;
    // Per op: run before each operation (a slow device's time passing on a test's clock), or null.
    private final java.util.concurrent.atomic.AtomicReferenceArray<Runnable> delays =
            new java.util.concurrent.atomic.AtomicReferenceArray<>(Op.values().length);
    // Per op: every operation fails while set.
    private final java.util.concurrent.atomic.AtomicIntegerArray failing = new java.util.concurrent.atomic.AtomicIntegerArray(Op.values().length);

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

    /**
     * Holds every operation of kind {@code op} from now on, as a hung device does, until the returned
     * gate is completed; then they run, in no particular order.
     */
    public CompletableFuture<Void> hang(Op op) {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        gate.whenComplete((ignored, failure) -> hangs.compareAndSet(op.ordinal(), gate, null));
        hangs.set(op.ordinal(), gate);
        return gate;
    }

    /**
     * Runs {@code delay} before each operation of kind {@code op} from now on (null: no more), as the
     * time a slow device takes: a test advances its injected clock there, so latency costs no sleep.
     */
    public void delay(Op op, Runnable delay) {
        delays.set(op.ordinal(), delay);
    }

    /** Fails every operation of kind {@code op} while {@code on}, as a device returning EIO does. */
    public void failing(Op op, boolean on) {
        failing.set(op.ordinal(), on ? 1 : 0);
    }

    /**
     * While on, the device returns stale bytes, as a drive that lost a write but acknowledged it
     * would: every write first keeps what it overwrites, and every read returns the kept bytes of the
     * blocks it covers instead of the current ones.
     */
    public void staleReads(boolean on) {
        stale = on;
        if (!on) {
            overwritten.clear();
        }
    }

    /** Operations that arrived while their kind was hung (held, or run after the gate opened). */
    public int held() {
        return held.get();
    }

    private CompletableFuture<Void> gate(Op op) {
        CompletableFuture<Void> gate = hangs.get(op.ordinal());
        if (gate != null) {
            held.incrementAndGet();
        }
        return gate;
    }

    /** How many faults were injected so far. */
    public int injected() {
        return injected.get();
    }

    private boolean faultNow(Op op) {
        Runnable delay = delays.get(op.ordinal());
        if (delay != null) {
            delay.run();
        }
        if (failing.get(op.ordinal()) == 1) {
            injected.incrementAndGet();
            return true;
        }
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
        CompletableFuture<Void> gate = gate(Op.READ);
        CompletableFuture<Void> read = gate == null ? inner.read(lba, buffer)
                : gate.thenCompose(ignored -> inner.read(lba, buffer));
        return stale ? read.thenRun(() -> serveStale(lba, buffer)) : read;
    }

    private void serveStale(long lba, ByteBuffer buffer) {
        for (int block = 0; block < buffer.remaining() / BLOCK_SIZE; block++) {
            byte[] old = overwritten.get(lba + block);
            if (old != null) {
                buffer.duplicate().position(buffer.position() + block * BLOCK_SIZE).put(old);
            }
        }
    }

    private void keepOverwritten(long lba, int blocks) {
        ByteBuffer old = io.flashchunk.buffer.AlignedBuffers.allocate(blocks * BLOCK_SIZE);
        try {
            inner.readNow(lba, old);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        for (int block = 0; block < blocks; block++) {
            byte[] bytes = new byte[BLOCK_SIZE];
            old.get(block * BLOCK_SIZE, bytes);
            overwritten.put(lba + block, bytes);
        }
    }

    @Override
    public void readNow(long lba, ByteBuffer buffer) throws IOException {
        if (faultNow(Op.READ)) {
            throw fault(Op.READ, lba);
        }
        CompletableFuture<Void> gate = gate(Op.READ);
        if (gate != null) {
            gate.join(); // a read in the caller's thread on a hung device blocks that thread
        }
        inner.readNow(lba, buffer);
        if (stale) {
            serveStale(lba, buffer);
        }
    }

    @Override
    public CompletableFuture<Void> write(long lba, ByteBuffer buffer) {
        if (stale) {
            keepOverwritten(lba, buffer.remaining() / BLOCK_SIZE);
        }
        boolean fail = faultNow(Op.WRITE);
        CompletableFuture<Void> gate = gate(Op.WRITE);
        CompletableFuture<Void> written = gate == null ? inner.write(lba, buffer)
                : gate.thenCompose(ignored -> inner.write(lba, buffer));
        return fail ? written.handle((ignored, failure) -> {
            throw new java.util.concurrent.CompletionException(fault(Op.WRITE, lba));
        }) : written;
    }

    @Override
    public void flush() throws IOException {
        boolean fail = faultNow(Op.FLUSH);
        CompletableFuture<Void> gate = gate(Op.FLUSH);
        if (gate != null) {
            gate.join();
        }
        inner.flush();
        if (fail) {
            throw fault(Op.FLUSH, -1);
        }
    }

    /** The inner device's discard, failed, held or delayed like a flush (it blocks the same way). */
    @Override
    public boolean discard(long lba, long blocks) throws IOException {
        boolean fail = faultNow(Op.DISCARD);
        CompletableFuture<Void> gate = gate(Op.DISCARD);
        if (gate != null) {
            gate.join();
        }
        if (fail) {
            throw fault(Op.DISCARD, lba);
        }
        return inner.discard(lba, blocks);
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

package io.flashchunk.cache.read;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How a hit reads flash: through the device's queue, given up after {@code timeoutNanos} (the
 * device keeps the buffer until it answers), or with a blocking read in the caller's own thread (no
 * thread hand-off; the gate notices one that does not return); the gate asked around each read, and
 * the clock (nanoseconds) its reads are timed by.
 */
public final class FlashReadPolicy {
    /** Queued reads given up after 200 ms, no gate: tests and the simulator. */
    public static final FlashReadPolicy DEFAULT = new FlashReadPolicy(false, TimeUnit.MILLISECONDS.toNanos(200),
            FlashReadGate.OPEN, System::nanoTime);

    private final boolean inCallerThread;
    private final long timeoutNanos;
    private final FlashReadGate gate;
    private final LongSupplier clock;

    public FlashReadPolicy(boolean inCallerThread, long timeoutNanos, FlashReadGate gate, LongSupplier clock) {
        if (timeoutNanos <= 0) {
            throw new IllegalArgumentException("read timeout must be positive: " + timeoutNanos + " ns");
        }
        this.inCallerThread = inCallerThread;
        this.timeoutNanos = timeoutNanos;
        this.gate = gate;
        this.clock = clock;
    }

    public boolean inCallerThread() {
        return inCallerThread;
    }

    public long timeoutNanos() {
        return timeoutNanos;
    }

    public FlashReadGate gate() {
        return gate;
    }

    public LongSupplier clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "FlashReadPolicy[inCallerThread=" + inCallerThread + ", timeoutNanos=" + timeoutNanos + ", gate=" + gate
                + ", clock=" + clock + "]";
    }
}

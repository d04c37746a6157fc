package io.flashchunk.cache.read;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How a hit reads flash: through the device's queue, given up after {@code timeoutNanos} (the
 * device keeps the buffer until it answers), or with a blocking read in the caller's own thread (no
 * thread hand-off; the gate notices one that does not return); the gate asked around each read, and
 * the clock (nanoseconds) its reads are timed by.
 */
public record FlashReadPolicy(boolean inCallerThread, long timeoutNanos, FlashReadGate gate, LongSupplier clock) {
    /** Queued reads given up after 200 ms, no gate: tests and the simulator. */
    public static final FlashReadPolicy DEFAULT = new FlashReadPolicy(false, TimeUnit.MILLISECONDS.toNanos(200),
            FlashReadGate.OPEN, System::nanoTime);

    public FlashReadPolicy {
        if (timeoutNanos <= 0) {
            throw new IllegalArgumentException("read timeout must be positive: " + timeoutNanos + " ns");
        }
    }
}

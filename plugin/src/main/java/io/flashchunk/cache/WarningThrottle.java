package io.flashchunk.cache;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * At most one warning per interval for one kind of trouble, saying how many were held back: a
 * failing device must show up in the log, not flood it at the rate of reads.
 */
public final class WarningThrottle {
    private final long intervalNanos;
    private final AtomicLong nextAllowed = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    public WarningThrottle(long interval, TimeUnit unit) {
        this.intervalNanos = unit.toNanos(interval);
    }

    /** Logs {@code message} (a format with {} for {@code argument}) unless one was logged recently. */
    public void warn(Logger log, String message, Object argument) {
        long now = System.nanoTime();
        long allowed = nextAllowed.get();
        if ((allowed == Long.MIN_VALUE || now - allowed >= 0) && nextAllowed.compareAndSet(allowed, now + intervalNanos)) {
            long held = suppressed.getAndSet(0);
            log.warn(held == 0 ? message : message + " (" + held + " more like it since the last report)", argument);
        } else {
            suppressed.incrementAndGet();
        }
    }
}

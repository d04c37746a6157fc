package io.flashchunk.testing;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** A nanosecond clock that moves only when a test moves it: timing rules tested without sleeping. */
public final class ManualClock implements LongSupplier {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long getAsLong() {
        return nanos.get();
    }

    public void advance(Duration by) {
        nanos.addAndGet(by.toNanos());
    }
}

package io.flashchunk.cache.space;

import java.util.concurrent.atomic.LongAdder;

/**
 * A one-minute exponentially weighted moving average of events per second, the way Unix load
 * averages decay: events are counted as they happen and folded in at each {@link #tick}.
 */
public final class LoadAverage {
    private static final double WINDOW_SECONDS = 60;

    private final LongAdder sinceTick = new LongAdder();
    private volatile double perSecond;
    private volatile boolean started;

    public void mark(long events) {
        sinceTick.add(events);
    }

    /** Folds in the events of the last {@code seconds} (the time since the previous tick). */
    public void tick(double seconds) {
        double instant = sinceTick.sumThenReset() / seconds;
        if (started) {
            perSecond += (1 - Math.exp(-seconds / WINDOW_SECONDS)) * (instant - perSecond);
        } else {
            perSecond = instant;
            started = true;
        }
    }

    public double perSecond() {
        return perSecond;
    }
}

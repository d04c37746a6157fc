package io.flashchunk.ycsb;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import site.ycsb.generator.HotspotIntegerGenerator;
import site.ycsb.generator.NumberGenerator;

/**
 * YCSB's hotspot key choice whose hot set moves once, by time: until {@code moveAfterNanos} after
 * the first key it chooses, the hot keys are YCSB's own (the first {@code hotCount} of the range);
 * from then on they are the next {@code hotCount} keys, a disjoint range, and the old hot keys are
 * as cold as the rest.
 *
 * <p>Time rather than an operation count: every client process and every configuration then moves
 * at the same second of its run (YCSB's status windows count from about the first operation), so a
 * measured window holds the same share before and after the move however fast the node serves it.
 * Which keys a draw picks is random, as in YCSB; where the hot set is at a given moment is not.
 */
public final class MovingHotspotGenerator extends NumberGenerator {
    private final long lower;
    private final long interval;
    private final long hotCount;
    private final double hotOpnFraction;
    private final long moveAfterNanos;
    private final LongSupplier nanoClock;
    private final Supplier<RandomGenerator> random;
    /** When the first key was chosen, by nanoClock; Long.MIN_VALUE until then. */
    private final AtomicLong startNanos = new AtomicLong(Long.MIN_VALUE);

    /**
     * @param moveAfterNanos when the hot set moves, after the first key chosen (0: moved from the start;
     *                       Long.MAX_VALUE: never)
     */
    public MovingHotspotGenerator(long lower, long upper, double hotsetFraction, double hotOpnFraction,
            long moveAfterNanos, LongSupplier nanoClock, Supplier<RandomGenerator> random) {
        this.lower = lower;
        this.interval = upper - lower + 1;
        this.hotCount = (long) (interval * hotsetFraction); // as HotspotIntegerGenerator counts it
        if (hotCount < 1 || 2 * hotCount > interval) {
            // the moved hot set must fit beside the first one, or the two would overlap
            throw new IllegalArgumentException("a moving hot set needs a hot data fraction above 0 and at most 0.5, got "
                    + hotsetFraction + " of " + interval + " keys");
        }
        this.hotOpnFraction = hotOpnFraction;
        this.moveAfterNanos = moveAfterNanos;
        this.nanoClock = nanoClock;
        this.random = random;
    }

    /** The same hot set and shares as YCSB's hotspot generator, moving after {@code moveAfterSeconds} of real time. */
    public static MovingHotspotGenerator of(HotspotIntegerGenerator hotspot, double moveAfterSeconds) {
        long after = moveAfterSeconds * 1e9 >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) (moveAfterSeconds * 1e9);
        return new MovingHotspotGenerator(hotspot.getLowerBound(), hotspot.getUpperBound(),
                hotspot.getHotsetFraction(), hotspot.getHotOpnFraction(), after, System::nanoTime,
                ThreadLocalRandom::current);
    }

    @Override
    public Long nextValue() {
        RandomGenerator r = random.get();
        // index 0..hotCount-1: a hot key; the rest: cold keys; the move rotates the range by hotCount
        long index = r.nextDouble() < hotOpnFraction ? r.nextLong(hotCount) : hotCount + r.nextLong(interval - hotCount);
        long key = lower + (index + (moved() ? hotCount : 0)) % interval;
        setLastValue(key);
        return key;
    }

    /** Whether the hot set has moved (the first call starts the clock). */
    public boolean moved() {
        long now = nanoClock.getAsLong();
        startNanos.compareAndSet(Long.MIN_VALUE, now);
        return moveAfterNanos != Long.MAX_VALUE && now - startNanos.get() >= moveAfterNanos;
    }

    /** The first key of the hot set now: the range's first before the move, hotCount keys above it after. */
    public long hotStart() {
        return lower + (moved() ? hotCount : 0);
    }

    public long hotCount() {
        return hotCount;
    }

    @Override
    public double mean() {
        return lower + (interval - 1) / 2.0; // over the whole range; YCSB asks this of key choosers only for scans
    }
}

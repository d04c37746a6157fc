package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.flashchunk.testing.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Percentiles of about the last minute: values leave the window slot by slot, as the clock moves. */
class RecentLatencyTest {
    private static final Duration SLOT = Duration.ofSeconds(10);

    @Test
    void valuesLeaveTheWindowWithTheirSlot() {
        ManualClock clock = new ManualClock();
        RecentLatency recent = new RecentLatency(clock, SLOT.toNanos());
        for (int i = 0; i < 100; i++) {
            recent.record(5_000_000); // 5 ms, a slow minute
        }
        assertEquals(100, recent.window().getTotalCount());
        clock.advance(SLOT.multipliedBy(3));
        for (int i = 0; i < 100; i++) {
            recent.record(100_000); // 100 us
        }
        assertEquals(200, recent.window().getTotalCount(), "both slots are within the last minute");
        assertEquals(5_000_000, recent.window().getValueAtPercentile(99), 5_000_000 * 0.001);

        clock.advance(SLOT.multipliedBy(3));
        assertEquals(100, recent.window().getTotalCount(), "the first slot is six slots old: out");
        assertEquals(100_000, recent.window().getValueAtPercentile(99), 100_000 * 0.001);

        clock.advance(SLOT.multipliedBy(3));
        assertEquals(0, recent.window().getTotalCount(), "nothing in the last minute");
    }

    @Test
    void aValueRecordedBeforeAQuietSpellIsFiledUnderItsOwnSlot() {
        ManualClock clock = new ManualClock();
        RecentLatency recent = new RecentLatency(clock, SLOT.toNanos());
        recent.record(1_000);
        clock.advance(Duration.ofMinutes(5)); // nobody read the window meanwhile
        recent.record(2_000);
        assertEquals(1, recent.window().getTotalCount(), "the old value left with its slot");
        assertEquals(2_000, recent.window().getMaxValue(), 2);
    }

    @Test
    void aSlotReusedAfterTheRingCameRoundStartsEmpty() {
        ManualClock clock = new ManualClock();
        RecentLatency recent = new RecentLatency(clock, SLOT.toNanos());
        recent.record(1_000);
        recent.window();
        clock.advance(SLOT.multipliedBy(RecentLatency.SLOTS)); // the same index of the ring, six slots on
        recent.record(3_000);
        assertEquals(1, recent.window().getTotalCount());
        assertEquals(3_000, recent.window().getMinValue(), 3);
    }
}

package io.flashchunk.cache.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.testing.ManualClock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The breaker's rules on a manual clock: what trips it, what does not, and how it comes back. */
class DeviceBreakerTest {
    private static final long MS = 1_000_000;
    private final ManualClock clock = new ManualClock();
    private final MissReads misses = new MissReads(clock, 1_000 * MS);
    private final DeviceBreaker breaker = new DeviceBreaker("/dev/test", clock, misses, 1_000 * MS, 2 * MS,
            60_000 * MS, 200 * MS);

    private void missesTaking(long nanos) {
        for (int i = 0; i < MissReads.MIN_SAMPLES; i++) {
            misses.record(nanos);
        }
    }

    /** A period of reads taking {@code nanos} each (those the breaker allows), judged at its end. */
    private void period(long nanos, boolean failed) {
        for (int i = 0; i <= DeviceBreaker.MIN_SAMPLES; i++) {
            if (i == DeviceBreaker.MIN_SAMPLES) {
                clock.advance(Duration.ofSeconds(1));
            }
            if (breaker.allowRead()) {
                breaker.recordRead(nanos, failed);
            }
        }
    }

    @Test
    void readsSlowerThanTheFloorAndTheMissesTripItUntilTheRetryTime() {
        missesTaking(1 * MS);
        clock.advance(Duration.ofSeconds(1));
        period(50 * MS, false);
        assertFalse(breaker.bypassed(), "one slow period may be a pause of the whole process");
        for (int i = 2; i < DeviceBreaker.MIN_SAMPLES; i++) {
            breaker.recordRead(50 * MS, false);
        }
        assertFalse(breaker.bypassed(), "too few reads to judge");
        breaker.recordRead(50 * MS, false);

        assertTrue(breaker.bypassed(), "the second slow period in a row");
        assertEquals(1, breaker.trips());
        long refused = breaker.refusedReads();
        assertFalse(breaker.allowRead());
        assertFalse(breaker.allowRead());
        assertEquals(refused + 2, breaker.refusedReads());
        clock.advance(Duration.ofSeconds(59));
        assertFalse(breaker.allowRead(), "still within the retry time");
        clock.advance(Duration.ofSeconds(1));
        assertTrue(breaker.allowRead(), "tried again after the retry time");
        assertFalse(breaker.bypassed());
    }

    @Test
    void aProbeThatIsStillSlowTripsItAgainAndAFastOneClosesIt() {
        missesTaking(1 * MS);
        clock.advance(Duration.ofSeconds(1));
        period(50 * MS, false);
        period(50 * MS, false);
        assertEquals(1, breaker.trips());
        clock.advance(Duration.ofSeconds(60));
        period(50 * MS, false);
        assertEquals(2, breaker.trips(), "one slow period of probing is enough");
        assertTrue(breaker.bypassed());

        clock.advance(Duration.ofSeconds(60));
        period(MS / 10, false);
        assertFalse(breaker.bypassed());
        period(MS / 10, false);
        assertEquals(2, breaker.trips(), "fast reads keep it closed");
    }

    @Test
    void aDeviceFasterThanTheFloorIsNeverSlowEvenAgainstFasterMisses() {
        missesTaking(MS / 100); // page-cache hits: 10 µs
        clock.advance(Duration.ofSeconds(1));
        period(MS, false);
        period(MS, false);
        assertFalse(breaker.bypassed());
        assertEquals(0, breaker.trips());
    }

    @Test
    void aDeviceSlowerThanTheFloorButFasterThanTheMissesStaysInUse() {
        missesTaking(20 * MS);
        clock.advance(Duration.ofSeconds(1));
        period(5 * MS, false);
        period(5 * MS, false);
        assertEquals(0, breaker.trips());
    }

    @Test
    void withoutMissesToCompareWithNothingIsSlow() {
        period(300 * MS, false);
        period(300 * MS, false);
        period(300 * MS, false);
        assertEquals(0, breaker.trips());
        missesTaking(1 * MS);
        period(3 * MS, false);
        period(3 * MS, false);
        assertEquals(1, breaker.trips());
    }

    @Test
    void aFewSlowReadsAmongFastOnesAreAPauseNotASlowDevice() {
        missesTaking(1 * MS);
        clock.advance(Duration.ofSeconds(1));
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 40; i++) {
                breaker.recordRead(i < 12 ? 900 * MS : MS / 10, false); // a GC pause stretched 12 of 40
            }
            clock.advance(Duration.ofSeconds(1));
            breaker.recordRead(MS / 10, false);
        }
        assertEquals(0, breaker.trips());
    }

    @Test
    void aQuarterOfReadsFailingTripsItAndFewerDoNot() {
        for (int i = 0; i < 40; i++) {
            breaker.recordRead(MS / 10, i % 5 == 0); // a fifth fail
        }
        clock.advance(Duration.ofSeconds(1));
        breaker.recordRead(MS / 10, false);
        assertEquals(0, breaker.trips());

        period(MS / 10, true);
        period(MS / 10, true);
        assertEquals(1, breaker.trips());
        assertTrue(breaker.bypassed());
    }

    @Test
    void aPeriodWithTooFewReadsIsNotJudged() {
        missesTaking(1 * MS);
        period(500 * MS, false);
        for (int i = 1; i < DeviceBreaker.MIN_SAMPLES - 1; i++) {
            breaker.recordRead(500 * MS, false);
        }
        clock.advance(Duration.ofSeconds(5));
        breaker.recordRead(500 * MS, false);
        assertEquals(0, breaker.trips(), "15 reads in 6 s: not judged");
        breaker.recordRead(500 * MS, false);
        assertEquals(1, breaker.trips(), "judged once it has enough reads");
    }

    @Test
    void aCallerReadOutstandingPastTheHungTimeStopsNewOnesAndTripsIt() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread stuck = new Thread(() -> {
            assertTrue(breaker.callerReadStarted());
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            breaker.callerReadEnded(false);
        });
        stuck.start();
        assertTrue(started.await(10, TimeUnit.SECONDS));

        clock.advance(Duration.ofMillis(100));
        assertTrue(breaker.callerReadStarted(), "100 ms is not hung yet");
        breaker.callerReadEnded(false);
        clock.advance(Duration.ofMillis(150));
        assertFalse(breaker.callerReadStarted(), "one read outstanding for 250 ms: hung");
        assertEquals(1, breaker.trips());
        assertTrue(breaker.bypassed());

        release.countDown();
        stuck.join();
        clock.advance(Duration.ofSeconds(60));
        assertTrue(breaker.callerReadStarted(), "the hung read returned; tried again after the retry time");
        breaker.callerReadEnded(false);
    }
}

package io.flashchunk.ycsb.cassandra;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Opens the client's first connection, trying again for up to a wait: a node being restarted (a
 * crash soak kills nodes while their clients start) refuses or resets connections for a few seconds,
 * and a client that gave up on its first try would run its whole phase without one operation.
 */
final class FirstConnection {
    /** Between two tries: the driver's own connect timeout bounds each try. */
    static final Duration PAUSE = Duration.ofMillis(500);

    /** Waits between tries; a test's moves its clock instead. */
    @FunctionalInterface
    interface Pause {
        void pause(Duration duration) throws InterruptedException;
    }

    private FirstConnection() {
    }

    /** Tries {@code attempt} until it succeeds or {@code wait} has passed; a zero wait means one try. */
    static <T> T open(Supplier<T> attempt, Duration wait) {
        return open(attempt, wait, System::nanoTime, duration -> Thread.sleep(duration.toMillis()));
    }

    /**
     * As {@link #open(Supplier, Duration)} on {@code nanoClock}, pausing with {@code pause}. After one
     * try its failure is thrown; after several, a failure naming how many, caused by the last.
     */
    static <T> T open(Supplier<T> attempt, Duration wait, LongSupplier nanoClock, Pause pause) {
        long deadline = nanoClock.getAsLong() + wait.toNanos();
        for (int tries = 1; ; tries++) {
            try {
                return attempt.get();
            } catch (RuntimeException e) {
                if (nanoClock.getAsLong() - deadline >= 0) {
                    throw tries == 1 ? e : new IllegalStateException(e.getMessage() + " (" + tries + " tries in "
                            + wait.toMillis() + " ms)", e);
                }
            }
            try {
                pause.pause(PAUSE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting to connect again", e);
            }
        }
    }
}

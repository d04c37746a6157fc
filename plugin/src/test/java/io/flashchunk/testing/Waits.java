package io.flashchunk.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;

/**
 * Waits, bounded, for an effect a component exposes no signal for (a background write reaching
 * flash, a node's metric): a test that waits forever could not fail.
 */
public final class Waits {
    /** A condition that may throw while it is looked at. */
    public interface Check {
        boolean holds() throws Exception;
    }

    private Waits() {
    }

    /** Returns once {@code check} holds; fails the test naming {@code what} after {@code limit}. */
    public static void until(String what, Duration limit, Duration poll, Check check) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for " + what);
            }
            Thread.sleep(poll.toMillis());
        }
    }
}

package io.flashchunk.cassandra.it;

import static org.junit.jupiter.api.Assertions.fail;

/** Waits for a condition on a node (bounded: a test that waits forever cannot fail). */
final class Eventually {
    interface Check {
        boolean holds() throws Exception;
    }

    private Eventually() {
    }

    static void until(String what, Check check) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for " + what);
            }
            Thread.sleep(100);
        }
    }
}

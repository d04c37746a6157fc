package io.flashchunk.cassandra.it;

import io.flashchunk.testing.Waits;
import java.time.Duration;

/** Waits for a condition on a node: up to two minutes, looked at every 100 ms. */
final class Eventually {
    private Eventually() {
    }

    static void until(String what, Waits.Check check) throws Exception {
        Waits.until(what, Duration.ofMinutes(2), Duration.ofMillis(100), check);
    }
}

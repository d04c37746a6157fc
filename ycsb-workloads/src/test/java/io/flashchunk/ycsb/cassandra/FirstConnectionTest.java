package io.flashchunk.ycsb.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The first connection's retries, on a clock that only the pauses move. */
class FirstConnectionTest {
    private final AtomicLong clock = new AtomicLong(1_000);
    private final AtomicInteger pauses = new AtomicInteger();

    private <T> T open(Supplier<T> attempt, Duration wait) {
        return FirstConnection.open(attempt, wait, clock::get, pause -> {
            pauses.incrementAndGet();
            clock.addAndGet(pause.toNanos());
        });
    }

    /** Fails its first {@code failures} calls as a node that is restarting does. */
    private static Supplier<String> nodeUpAfter(int failures, AtomicInteger calls) {
        return () -> {
            if (calls.incrementAndGet() <= failures) {
                throw new IllegalStateException("Connection reset (call " + calls.get() + ")");
            }
            return "session";
        };
    }

    @Test
    void aNodeThatComesBackWithinTheWaitIsConnectedTo() {
        AtomicInteger calls = new AtomicInteger();
        assertEquals("session", open(nodeUpAfter(5, calls), Duration.ofSeconds(10)));
        assertEquals(6, calls.get());
        assertEquals(5, pauses.get());
    }

    @Test
    void withNoWaitOneFailureIsThrownAsItIs() {
        AtomicInteger calls = new AtomicInteger();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> open(nodeUpAfter(1, calls), Duration.ZERO));
        assertEquals("Connection reset (call 1)", e.getMessage());
        assertEquals(1, calls.get());
        assertEquals(0, pauses.get());
    }

    @Test
    void afterTheWaitTheLastFailureIsThrownWithTheNumberOfTries() {
        AtomicInteger calls = new AtomicInteger();
        Duration wait = Duration.ofSeconds(2);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> open(nodeUpAfter(100, calls), wait));
        int tries = (int) (wait.toNanos() / FirstConnection.PAUSE.toNanos()) + 1;
        assertEquals(tries, calls.get(), "tries until the clock passed the wait, none after");
        assertTrue(e.getMessage().startsWith("Connection reset (call " + tries + ")"), e.getMessage());
        assertTrue(e.getMessage().contains(tries + " tries in 2000 ms"), e.getMessage());
        assertSame(IllegalStateException.class, e.getCause().getClass());
    }
}

package io.flashchunk.ycsb.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SharedInstanceTest {
    private final AtomicInteger opened = new AtomicInteger();
    private final SharedInstance<Resource> shared = new SharedInstance<>();

    private final class Resource implements AutoCloseable {
        int closed;

        Resource() {
            opened.incrementAndGet();
        }

        @Override
        public void close() {
            closed++;
        }
    }

    @Test
    void theLastReleaseClosesTheOneInstance() throws Exception {
        Resource first = shared.acquire(Resource::new);
        Resource second = shared.acquire(Resource::new);
        Resource third = shared.acquire(Resource::new);

        assertSame(first, second);
        assertSame(first, third);
        assertEquals(1, opened.get());
        shared.release();
        shared.release();
        assertEquals(0, first.closed, "closed while still in use");
        shared.release();
        assertEquals(1, first.closed);
        assertEquals(0, shared.users());
    }

    @Test
    void acquiringAfterTheLastReleaseOpensAFreshInstance() throws Exception {
        Resource first = shared.acquire(Resource::new);
        shared.release();

        Resource second = shared.acquire(Resource::new);

        assertNotSame(first, second);
        assertEquals(2, opened.get());
    }

    @Test
    void aFailedOpenLeavesNoUser() {
        assertThrows(IllegalStateException.class, () -> shared.acquire(() -> {
            throw new IllegalStateException("no node");
        }));

        assertEquals(0, shared.users());
        assertThrows(IllegalStateException.class, shared::release);
    }
}

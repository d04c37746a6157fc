package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.testing.Waits;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Waits and assertions the cache-level tests share. */
final class CacheChecks {
    private CacheChecks() {
    }

    /** Waits until {@code condition} holds (a background effect the cache exposes no signal for), 20 s at most. */
    static void await(String what, Waits.Check condition) throws Exception {
        Waits.until(what, Duration.ofSeconds(20), Duration.ofMillis(5), condition);
    }

    /** Waits until the engine's writer has taken every chunk offered so far (appended or dropped). */
    static void awaitWritten(FlashCache cache) throws InterruptedException {
        assertTrue(((SegmentFlashCache) cache).engine().awaitWritten(20, TimeUnit.SECONDS),
                "the engine's writer took every chunk");
    }

    /** {@code length} bytes of {@code file} at {@code position} are a hit with the bytes of {@code seed}. */
    static void assertHit(FlashCache cache, CachedFile file, long seed, long position, int length) {
        CachedChunk chunk = cache.get(file, position, length, false);
        assertNotNull(chunk, "expected a hit for " + file + "@" + position);
        try {
            assertArrayEquals(ChunkContent.bytes(seed, position, length), ChunkContent.read(chunk),
                    "bytes of " + file + "@" + position);
        } finally {
            chunk.release();
        }
    }
}

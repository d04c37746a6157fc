package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.flashchunk.buffer.AlignedBufferPool;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The DRAM tier's one promise about races: a copy that fails its check is never seen by a reader. */
class DramTierTest {
    private static final long KEY = 42;
    private final AlignedBufferPool pool = new AlignedBufferPool(1 << 16, 1 << 20);
    private final DramTier tier = new DramTier(1 << 20);

    /** What a reader in another thread gets for the key now, or null. */
    private byte[] readElsewhere() throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            CachedChunk chunk = tier.get(KEY, pool);
            if (chunk == null) {
                return null;
            }
            byte[] bytes = ChunkContent.read(chunk);
            chunk.release();
            return bytes;
        }).get(20, TimeUnit.SECONDS);
    }

    @Test
    void aCopyIsNeverVisibleWhileItsCheckRunsAndIsNotKeptWhenTheCheckFails() throws Exception {
        byte[] first = {1, 2, 3};
        byte[] second = {4, 5, 6};
        tier.putIfCurrent(KEY, ByteBuffer.wrap(first), () -> true);
        assertArrayEquals(first, readElsewhere());

        byte[][] seenDuringCheck = new byte[1][];
        tier.putIfCurrent(KEY, ByteBuffer.wrap(second), () -> {
            try {
                seenDuringCheck[0] = readElsewhere();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            return false; // invalidated since the read began
        });
        assertArrayEquals(first, seenDuringCheck[0], "while the check ran, readers saw what was there before");
        assertArrayEquals(first, readElsewhere(), "a copy that failed its check is not kept");

        tier.invalidate(KEY);
        tier.putIfCurrent(KEY, ByteBuffer.wrap(second), () -> {
            try {
                seenDuringCheck[0] = readElsewhere();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            return true;
        });
        assertNull(seenDuringCheck[0], "not even a copy that passes is seen before its check passed");
        assertArrayEquals(second, readElsewhere());
    }
}

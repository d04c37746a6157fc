package io.flashchunk.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.flashchunk.buffer.AlignedBufferPool;
import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;

/**
 * An optional small DRAM tier in front of flash for the hottest chunks, bounded in bytes. Entries
 * stay right as long as their file is live (data files are immutable, file ids are never reused);
 * invalidations remove them with the flash entries.
 */
final class DramTier {
    private final Cache<Long, byte[]> chunks;

    DramTier(long maximumBytes) {
        this.chunks = Caffeine.newBuilder()
                .maximumWeight(maximumBytes)
                .weigher((Long key, byte[] bytes) -> bytes.length)
                .build();
    }

    /** A copy of the chunk in a pooled buffer, or null. */
    CachedChunk get(long key, AlignedBufferPool pool) {
        byte[] bytes = chunks.getIfPresent(key);
        if (bytes == null) {
            return null;
        }
        ByteBuffer buffer = pool.acquire(bytes.length);
        buffer.duplicate().clear().put(bytes);
        buffer.clear().limit(bytes.length);
        return new CachedChunk(buffer, pool);
    }

    boolean contains(long key) {
        return chunks.asMap().containsKey(key);
    }

    /**
     * Keeps a copy of the chunk's bytes from position 0 to the limit, unless {@code current} says
     * they are no longer the chunk's. The check and the insert are one step against
     * {@link #invalidate} of the key: no reader ever sees a copy that fails the check, and an
     * invalidation that comes after the check removes the copy. So an invalidation that makes the
     * check fail before it clears the tier leaves no old bytes behind, not even for a moment.
     */
    void putIfCurrent(long key, ByteBuffer chunk, BooleanSupplier current) {
        byte[] bytes = new byte[chunk.limit()];
        chunk.duplicate().position(0).get(bytes);
        chunks.asMap().compute(key, (k, held) -> current.getAsBoolean() ? bytes : held);
    }

    void invalidate(long key) {
        chunks.invalidate(key);
    }

    void removeIf(LongPredicate keyMatches) {
        chunks.asMap().keySet().removeIf(key -> keyMatches.test(key));
    }
}

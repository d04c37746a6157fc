package io.flashchunk.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.flashchunk.buffer.AlignedBufferPool;
import java.nio.ByteBuffer;
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
        buffer.put(0, bytes).limit(bytes.length);
        return new CachedChunk(buffer, pool);
    }

    boolean contains(long key) {
        return chunks.asMap().containsKey(key);
    }

    /** Keeps a copy of the chunk's bytes from position 0 to the limit. */
    void put(long key, ByteBuffer chunk) {
        byte[] bytes = new byte[chunk.limit()];
        chunk.get(0, bytes);
        chunks.put(key, bytes);
    }

    void invalidate(long key) {
        chunks.invalidate(key);
    }

    void removeIf(LongPredicate keyMatches) {
        chunks.asMap().keySet().removeIf(key -> keyMatches.test(key));
    }
}

package io.flashchunk.cache;

import io.flashchunk.cache.files.ChunkKeys;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The next chunk of a file, read with the same I/O as a hit because it lay right beside it on flash
 * (the paper's overflow read). Its bytes may not be served until the engine that read it says, in
 * {@link FlashCache#claim}, that what it read is still that chunk's: the {@code ticket} is what the
 * engine keeps to decide it. Unclaimed, it must be released.
 */
public final class FollowingChunk {
    final long key;
    /** The engine's record of where the bytes were read from (the engine: the record's address). */
    final Object ticket;
    final ByteBuffer view;
    final CachedChunk.PooledBuffer pooled;
    private final AtomicBoolean done = new AtomicBoolean();

    FollowingChunk(long key, Object ticket, ByteBuffer view, CachedChunk.PooledBuffer pooled) {
        this.key = key;
        this.ticket = ticket;
        this.view = view;
        this.pooled = pooled;
    }

    /** The chunk's start in its file. */
    public long position() {
        return ChunkKeys.position(key);
    }

    /**
     * The chunk for its reader, once its engine judged it still current: takes over the buffer's
     * reference; null if it was released (or handed over) meanwhile.
     */
    CachedChunk handOver() {
        return done.compareAndSet(false, true) ? new CachedChunk(view, pooled) : null;
    }

    /** Lets go of the bytes unclaimed; a second call does nothing. */
    public void release() {
        if (done.compareAndSet(false, true)) {
            pooled.release();
        }
    }
}

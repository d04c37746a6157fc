package io.flashchunk.cache;

import io.flashchunk.cache.index.ChunkEntry;
import io.flashchunk.cache.index.ChunkKeys;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The next chunk of a file, read with the same I/O as a hit because it lay right beside it on flash
 * (the paper's overflow read). Nothing about its bytes is trusted yet: {@link FlashChunkCache#claim}
 * checks, when its reader asks for it, that its entry still points where it was read from and that
 * the bytes pass the checksum. Unclaimed, it must be released.
 */
public final class FollowingChunk {
    final ChunkEntry entry;
    final long location;
    final ByteBuffer view;
    final CachedChunk.PooledBuffer pooled;
    private final AtomicBoolean done = new AtomicBoolean();

    FollowingChunk(ChunkEntry entry, long location, ByteBuffer view, CachedChunk.PooledBuffer pooled) {
        this.entry = entry;
        this.location = location;
        this.view = view;
        this.pooled = pooled;
    }

    /** The chunk's start in its file. */
    public long position() {
        return ChunkKeys.position(entry.key());
    }

    /** Hands the buffer's reference on (to the claimed chunk); false if already released or claimed. */
    boolean takeOver() {
        return done.compareAndSet(false, true);
    }

    /** Lets go of the bytes unclaimed; a second call does nothing. */
    public void release() {
        if (done.compareAndSet(false, true)) {
            pooled.release();
        }
    }
}

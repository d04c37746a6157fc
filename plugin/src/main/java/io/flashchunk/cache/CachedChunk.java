package io.flashchunk.cache;

import io.flashchunk.buffer.AlignedBufferPool;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A hit: the chunk's bytes in a pooled buffer (position 0, limit the chunk's length). The caller
 * must {@link #release()} it when done reading; the buffer must not be used afterwards.
 */
public final class CachedChunk {
    private final ByteBuffer buffer;
    private final AlignedBufferPool pool;
    private final AtomicBoolean released = new AtomicBoolean();

    CachedChunk(ByteBuffer buffer, AlignedBufferPool pool) {
        this.buffer = buffer;
        this.pool = pool;
    }

    public ByteBuffer buffer() {
        return buffer;
    }

    public int length() {
        return buffer.limit();
    }

    /** Returns the buffer to the pool; a second call does nothing (a pooled buffer must have one owner). */
    public void release() {
        if (released.compareAndSet(false, true)) {
            pool.release(buffer);
        }
    }
}

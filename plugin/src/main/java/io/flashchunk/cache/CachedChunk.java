package io.flashchunk.cache;

import io.flashchunk.buffer.AlignedBufferPool;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A hit: the chunk's bytes in a pooled buffer (position 0, limit the chunk's length). The caller
 * must {@link #release()} it when done reading; the buffer must not be used afterwards.
 *
 * <p>A hit whose read also fetched the file's next chunk (it lay beside on flash) carries that one
 * as a {@link FollowingChunk}: {@link #takeFollower()} hands it over, and then the two share one
 * pooled buffer, returned when both are released.
 */
public final class CachedChunk {
    private final ByteBuffer buffer;
    private final PooledBuffer pooled;
    private final AtomicBoolean released = new AtomicBoolean();
    private FollowingChunk follower;

    CachedChunk(ByteBuffer buffer, AlignedBufferPool pool) {
        this(buffer, new PooledBuffer(buffer, pool, 1));
    }

    /** A view of a buffer owned by {@code pooled} (one of its references). */
    CachedChunk(ByteBuffer view, PooledBuffer pooled) {
        this.buffer = view;
        this.pooled = pooled;
    }

    public ByteBuffer buffer() {
        return buffer;
    }

    public int length() {
        return buffer.limit();
    }

    void attach(FollowingChunk next) {
        this.follower = next;
    }

    /** The next chunk read along with this one, now the caller's to claim or release; or null. */
    public FollowingChunk takeFollower() {
        FollowingChunk next = follower;
        follower = null;
        return next;
    }

    /** Returns the buffer to the pool; a second call does nothing (a pooled buffer must have one owner). */
    public void release() {
        if (released.compareAndSet(false, true)) {
            FollowingChunk next = takeFollower();
            if (next != null) {
                next.release();
            }
            pooled.release();
        }
    }

    /** A pooled buffer with a count of the chunks that still read it; the last release returns it. */
    static final class PooledBuffer {
        private final ByteBuffer buffer;
        private final AlignedBufferPool pool;
        private final java.util.concurrent.atomic.AtomicInteger references;

        PooledBuffer(ByteBuffer buffer, AlignedBufferPool pool, int references) {
            this.buffer = buffer;
            this.pool = pool;
            this.references = new java.util.concurrent.atomic.AtomicInteger(references);
        }

        void release() {
            int left = references.decrementAndGet();
            if (left == 0) {
                pool.release(buffer);
            } else if (left < 0) {
                throw new IllegalStateException("a pooled buffer was released more often than it was shared");
            }
        }
    }
}

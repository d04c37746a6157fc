package io.flashchunk.cassandra;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.cassandra.io.util.Rebufferer;

/**
 * One chunk handed to a Cassandra reader: the bytes from position 0 to the chunk's length, and what
 * to do with the buffer when the reader lets go. Cassandra may call {@link #buffer()} more than
 * once; each call gets a fresh big-endian view, as the stock cache gives.
 */
final class ChunkHolder implements Rebufferer.BufferHolder {
    private final ByteBuffer buffer;
    private final long offset;
    private final Runnable onRelease;
    private final AtomicBoolean released = new AtomicBoolean();

    ChunkHolder(ByteBuffer buffer, long offset, Runnable onRelease) {
        this.buffer = buffer;
        this.offset = offset;
        this.onRelease = onRelease;
    }

    @Override
    public ByteBuffer buffer() {
        return buffer.duplicate();
    }

    @Override
    public long offset() {
        return offset;
    }

    /** Returns the buffer to its pool once; a reader releasing twice must not free it twice. */
    @Override
    public void release() {
        if (released.compareAndSet(false, true)) {
            onRelease.run();
        }
    }
}

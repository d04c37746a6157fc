package io.flashchunk.cassandra;

import java.nio.ByteBuffer;
import org.apache.cassandra.io.compress.BufferType;
import org.apache.cassandra.utils.memory.BufferPool;

/**
 * Where a miss gets the buffer its chunk is read into, handed to Cassandra and given back when the
 * reader lets go: in a node, the buffer pool of Cassandra's own chunk cache.
 */
public interface MissBuffers {
    /** A buffer of {@code size} bytes (position 0, limit {@code size}) of {@code type}. */
    ByteBuffer get(int size, BufferType type);

    /** Takes back a buffer from {@link #get}; the caller must not use it afterwards. */
    void put(ByteBuffer buffer);

    /** Buffers from Cassandra's pool. */
    static MissBuffers of(BufferPool pool) {
        return new MissBuffers() {
            @Override
            public ByteBuffer get(int size, BufferType type) {
                return pool.get(size, type);
            }

            @Override
            public void put(ByteBuffer buffer) {
                pool.put(buffer);
            }
        };
    }
}

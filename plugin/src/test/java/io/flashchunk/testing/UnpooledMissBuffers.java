package io.flashchunk.testing;

import io.flashchunk.cassandra.MissBuffers;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.LongAdder;
import org.apache.cassandra.io.compress.BufferType;

/**
 * Miss buffers for tests outside a node: each one newly allocated of the type asked for, as
 * Cassandra's pool does once it has none to reuse; counts those not yet given back.
 */
public final class UnpooledMissBuffers implements MissBuffers {
    private final LongAdder outstanding = new LongAdder();

    @Override
    public ByteBuffer get(int size, BufferType type) {
        ByteBuffer buffer = type.allocate(size);
        outstanding.increment();
        return buffer;
    }

    @Override
    public void put(ByteBuffer buffer) {
        outstanding.decrement();
    }

    /** Buffers handed out and not yet put back. */
    public long outstanding() {
        return outstanding.sum();
    }
}

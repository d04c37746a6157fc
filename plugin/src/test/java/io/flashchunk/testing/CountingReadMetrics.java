package io.flashchunk.testing;

import io.flashchunk.cassandra.ChunkReadMetrics;
import java.util.concurrent.atomic.LongAdder;

/** Counts hits and misses as Cassandra's chunk-cache metrics would, for tests outside a node. */
public final class CountingReadMetrics implements ChunkReadMetrics {
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();

    @Override
    public void hit() {
        hits.increment();
    }

    @Override
    public void miss(long nanos) {
        misses.increment();
    }

    public long hits() {
        return hits.sum();
    }

    public long misses() {
        return misses.sum();
    }
}

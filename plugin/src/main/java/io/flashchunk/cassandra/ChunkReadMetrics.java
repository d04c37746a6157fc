package io.flashchunk.cassandra;

import org.apache.cassandra.metrics.ChunkCacheMetrics;

/**
 * Where the adapter counts the chunk reads it serves: in a node, Cassandra's chunk-cache metrics,
 * which {@code nodetool info} and {@code system_views.caches} show.
 */
public interface ChunkReadMetrics {
    /** A chunk served from the flash cache. */
    void hit();

    /** A chunk read from its SSTable, which took {@code nanos}. */
    void miss(long nanos);

    /** Records into Cassandra's own chunk-cache metrics. */
    static ChunkReadMetrics of(ChunkCacheMetrics metrics) {
        return new ChunkReadMetrics() {
            @Override
            public void hit() {
                metrics.recordHits(1);
            }

            @Override
            public void miss(long nanos) {
                metrics.recordMisses(1);
                metrics.recordLoadSuccess(nanos);
            }
        };
    }
}

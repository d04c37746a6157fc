package io.flashchunk.cassandra.it;

/** {@link InvalidationIT} on the compact engine: compaction with early open, TRUNCATE and DROP never serve old chunks. */
class CompactInvalidationIT extends InvalidationIT {
    @Override
    String nodeName() {
        return "invalidation-compact";
    }

    @Override
    String engineSettings() {
        return "cache_engine: compact\nsegment_size_mib: 1";
    }
}

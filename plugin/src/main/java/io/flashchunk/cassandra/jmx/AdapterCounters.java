package io.flashchunk.cassandra.jmx;

/** What the Cassandra adapter counts on top of the cache core, for the MXBean. */
public interface AdapterCounters {
    /** Reads served from the SSTable because the cache failed (fail-open). */
    long cacheFailures();

    /**
     * Times the cache ran out of memory (its direct read buffers) inside a read or an offer: the read
     * went to the SSTable, or the chunk was not cached.
     */
    long outOfMemory();

    /** Hits dropped because their length did not fit the reader (another chunk size, a grown file). */
    long lengthMismatches();

    /** Early-open invalidations Cassandra asked for. */
    long positionInvalidations();

    /** Data files whose chunk size the cache cannot hold, read uncached. */
    long uncachedFiles();

    /** Released files being watched for deletion now. */
    long watchedFiles();
}

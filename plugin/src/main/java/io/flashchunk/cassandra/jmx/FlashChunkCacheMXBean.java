package io.flashchunk.cassandra.jmx;

/**
 * The flash cache's own figures over JMX ({@code io.flashchunk:type=FlashChunkCache}), beside the
 * chunk-cache line Cassandra shows in nodetool info. Counters are since the node started; one scrape
 * reads one snapshot of them (see {@link FlashChunkCacheMetrics}).
 */
public interface FlashChunkCacheMXBean {
    long getHits();

    /**
     * Hits of about the last minute read from a segment in memory or from flash (followers served with
     * an earlier hit and the DRAM tier's hits left out): what the percentiles below are of.
     */
    long getRecentHits();

    /**
     * The median time of such a hit inside the cache's {@code get} over about the last minute,
     * microseconds; NaN with no hits (a latency of 0 would read as a fast cache).
     */
    double getHitLatency50thPercentileMicros();

    double getHitLatency99thPercentileMicros();

    double getHitLatency999thPercentileMicros();

    double getHitLatencyMaxMicros();

    long getFlashHits();

    /** Hits read from a segment still in memory (the write queue's second stage: not on flash yet). */
    long getMemoryHits();

    long getDramHits();

    long getMisses();

    double getHitRate();

    long getEntries();

    long getCapacityBytes();

    long getUsedBytes();

    long getPuts();

    long getDroppedQueueFull();

    /** Offers admission refused: their reads did not outweigh those of the chunks they would displace. */
    long getAdmissionRefusals();

    /**
     * {@link #getAdmissionRefusals()} under the name it had when it counted something else.
     *
     * @deprecated read {@code AdmissionRefusals}; this name goes in a later major release
     */
    @Deprecated
    long getDroppedEvictedBeforeWrite();

    /** Admitted offers the writer could not append (no segment to be had). */
    long getDroppedNoSpace();

    long getFlashBytesRead();

    /**
     * Bytes the flash devices took, as each device counts them: segments, their summaries and
     * checkpoints. Divided by the bytes admitted, the cache's write amplification.
     */
    long getFlashBytesWritten();

    /** Flash the sealed segments take, each counted whole: the chunks' side of {@link #getFlashBytesWritten}. */
    long getSegmentBytesWritten();

    long getChecksumErrors();

    long getReadErrors();

    long getWriteErrors();

    long getReadTimeouts();

    /**
     * Hits served from the SSTable because their flash device already had as many reads in flight as
     * it may (twice its queue depth, reads given up after the timeout included): a device that has
     * stopped answering, or one far slower than its load.
     */
    long getBusyDeviceMisses();

    /** Times a flash device was taken out of use as slower than the reads it replaces, failing or hung. */
    long getDeviceBypasses();

    /** Hits that read the SSTable instead because their device was out of use. */
    long getBypassedReads();

    /** Flash devices out of use now (the slow-device breaker tries each again later). */
    int getDevicesBypassed();

    /** Segments reclaimed (their chunks evicted, those read since written perhaps reinserted). */
    long getSegmentsReclaimed();

    /**
     * {@link #getSegmentsReclaimed()} under the name it had when it counted evicted chunks.
     *
     * @deprecated read {@code SegmentsReclaimed}; this name goes in a later major release
     */
    @Deprecated
    long getEvictions();

    /**
     * Records on flash (or in the segment being filled) no longer served: chunks of dropped and
     * compacted SSTables, chunks replaced or invalidated. Their space comes back as their segments
     * are reclaimed: segments with none live all at the next checkpoint, those with a quarter of their
     * records live or fewer first, a reclaim batch per checkpoint.
     */
    long getDeadChunks();

    /** Dropped or compacted SSTables whose cached chunks are still being taken out of the index. */
    int getDeadFilesPending();

    /** Chunks of dropped and compacted SSTables taken out of the index since start. */
    long getDeadFileChunksRemoved();

    /** Segments chosen for reclaim (doomed) before their turn because a quarter of their records or fewer were live. */
    long getMostlyDeadSegmentsDoomed();

    /** Chunks stored compressed on flash since start ({@code chunks_on_flash}), hot chunk moves included. */
    long getCompressedChunks();

    /** The bytes of the chunks stored compressed, before compression. */
    long getCompressedChunkBytes();

    /** The compressed payloads of those chunks: their ratio to {@link #getCompressedChunkBytes()} is what compression saved. */
    long getCompressedPayloadBytes();

    /** Chunks of tables stored compressed that were stored uncompressed: compressing saved less than an eighth. */
    long getChunksNotWorthCompressing();

    /** Chunks decompressed for flash hits. */
    long getChunksDecompressed();

    /**
     * Flash hits read twice because their record was longer than the bytes expected of its file's
     * (a chunk that compressed less than its file's others): a small share of the flash hits.
     */
    long getSecondReads();

    /**
     * Flash hits read from a device whose reads took 1.5 times the time of the least loaded device's,
     * taken to be written again where reads take least ({@code hot_chunk_move_rate} a second at most).
     */
    long getHotChunkMovesTaken();

    /**
     * Of those, the chunks written again (the rest stayed where they were: the write queue was full,
     * no segment of a less loaded device was open, or the chunk moved or changed first).
     */
    long getHotChunksMoved();

    /**
     * Segments of a less loaded device given up (its coldest, by the reclaim order) to make room for
     * the moves when it had too few free: their chunks become misses as they are reclaimed.
     */
    long getHotChunkMoveRoomSegments();

    /** Flash hits that read the file's next chunk with the same I/O (the paper's overflow read). */
    long getPairedReads();

    /** Next chunks so read that their reader then asked for: hits that cost no I/O. */
    long getFollowersServed();

    long getInvalidations();

    long getCheckpoints();

    long getCheckpointFailures();

    /** Of the durable checkpoints, those that were deltas (naming what changed since a full one). */
    long getDeltaCheckpoints();

    /**
     * Bytes the durable checkpoints wrote (their bodies): against {@link #getFlashBytesWritten()},
     * what checkpoints add to the flash's writes.
     */
    long getCheckpointBytesWritten();

    long getLastCheckpointSequence();

    /**
     * When the newest durable checkpoint started, milliseconds since the epoch: this run's, else the
     * one the start recovered from; 0 when there is none. A cache whose chunks did not change writes
     * none, so its age alone is no alarm: read it with {@link #getChangesSinceCheckpoint()}.
     */
    long getLastCheckpointTime();

    /** Chunks appended since the newest durable checkpoint started: what a crash now risks. */
    long getChangesSinceCheckpoint();

    long getRecoveredEntries();

    long getQueuedBytes();

    /** Reads the adapter had to serve from the SSTable because the cache failed (fail-open). */
    long getCacheFailures();

    /** Reads served from the SSTable, and offers not cached, because the cache ran out of memory. */
    long getOutOfMemory();

    /** Hits dropped because their length did not fit the reader (read again from the SSTable). */
    long getLengthMismatches();

    /** Early-open invalidations Cassandra asked for. */
    long getPositionInvalidations();

    /** Data files read uncached because their chunk size is below 4 KiB or above 64 KiB. */
    long getUncachedFiles();

    /** Released files being watched for deletion now. */
    long getWatchedFiles();

    /**
     * The data files whose chunks the cache may serve now (its live registrations), one path per
     * line, sorted. A file deleted from disk should leave this list within
     * a few seconds (the adapter's watch of released files): cluster tests check it after each step.
     */
    String getCachedFiles();

    /** Every counter on one line. */
    String getSummary();

    /** Writes a checkpoint now; returns a one-line account of it. */
    String checkpoint();
}

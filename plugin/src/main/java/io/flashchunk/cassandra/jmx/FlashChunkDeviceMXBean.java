package io.flashchunk.cassandra.jmx;

/**
 * One flash device of the cache over JMX ({@code io.flashchunk:type=FlashChunkDevice,space=N,path="..."},
 * one per configured device, in their order). Counters are since the cache opened the device; one
 * scrape of several attributes reads one snapshot, as {@link FlashChunkCacheMXBean}'s does.
 */
public interface FlashChunkDeviceMXBean {
    /** The device as configured. */
    String getPath();

    /** How the device moves bytes: {@code libaio}, {@code io_uring}, {@code threadpool} or {@code capi}. */
    String getEngine();

    /** Flash reads of lookups sent to this device that returned (a hit each, bar a record that fails its check). */
    long getHitReads();

    /** Flash reads of lookups that failed or were given up after the read timeout: misses. */
    long getFailedHitReads();

    /**
     * Nanoseconds the flash reads of lookups on this device took, failed ones included: its rate is
     * the reads in flight on average, and over the rate of {@link #getHitReads()} plus
     * {@link #getFailedHitReads()} a read's mean time. With {@link #getBusyMisses()} (a read timeout
     * each) it is the load new segments and hot chunk moves go by.
     */
    long getHitReadNanos();

    /** Lookups that found this device with as many reads in flight as it may, and were misses without a read. */
    long getBusyMisses();

    /** Read operations the device completed, everything counted (lookups, recovery, the checkpoint tool's none). */
    long getReads();

    long getWrites();

    long getBytesRead();

    /** Bytes the device took: segments, their summaries, checkpoints, superblocks. */
    long getBytesWritten();

    long getReadErrors();

    long getWriteErrors();

    /** Whether the slow-device breaker has it out of use now (its hits read the SSTable instead). */
    boolean isBypassed();

    /** Times the breaker took it out of use. */
    long getBypasses();

    /** Hits that read the SSTable because it was out of use. */
    long getBypassedReads();

    /** Segment writes in flight now. */
    int getWritesInFlight();

    long getCapacityBytes();

    /** Bytes of its segments that hold chunks (open, sealed, durable, doomed). */
    long getUsedBytes();

    long getFreeSegments();

    long getOpenSegments();

    /** Full and queued for writing, or being written. */
    long getSealedSegments();

    long getDurableSegments();

    /** Chosen to be reclaimed and still served until they are. */
    long getDoomedSegments();

    long getReclaimingSegments();

    /** Reclaimed, waiting for a checkpoint that no longer names them. */
    long getRetiredSegments();

    /** Free, their blocks being discarded (TRIM) before reuse ({@code discard: true}). */
    long getDiscardingSegments();
}

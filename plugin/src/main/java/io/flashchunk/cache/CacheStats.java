package io.flashchunk.cache;

import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * A snapshot of the cache's counters since it started.
 *
 * @param memoryHits              hits served from the write queue (chunks not yet on flash)
 * @param dramHits                hits served from the optional DRAM tier
 * @param flashHits               hits read from flash and verified
 * @param droppedEvictedBeforeWrite chunks evicted while queued: never written (flash wear saved)
 * @param staleReads              flash reads discarded because the entry moved or died meanwhile (compact
 *                                engine: offers dropped because their position was invalidated after
 *                                their file read began, and reads that found another chunk's record
 *                                where the index pointed, a partial key having matched)
 * @param pairedReads             flash hits that read the file's next chunk with the same I/O (it lay
 *                                right beside on flash)
 * @param followersServed         next chunks so read that their reader then asked for: hits without an I/O
 * @param changesSinceCheckpoint  chunks written, moved or removed since the newest durable checkpoint
 *                                started: a crash now would lose the written ones
 * @param flashHitLatencyNanos    time of a flash hit inside {@code get}, nanoseconds
 */
public record CacheStats(
        long memoryHits,
        long dramHits,
        long flashHits,
        long misses,
        long puts,
        long putsAlreadyCached,
        long uncacheable,
        long droppedQueueFull,
        long droppedEvictedBeforeWrite,
        long droppedNoSpace,
        long flashBytesRead,
        long flashBytesWritten,
        long flashWrites,
        long checksumErrors,
        long readErrors,
        long writeErrors,
        long readTimeouts,
        long staleReads,
        long evictions,
        long invalidations,
        long migrations,
        long readAheads,
        long pairedReads,
        long followersServed,
        long checkpoints,
        long checkpointFailures,
        long lastCheckpointSequence,
        long changesSinceCheckpoint,
        long recoveredEntries,
        long entries,
        long weightedBlocks,
        long queuedBytes,
        int queuedChunks,
        List<SpaceStats> spaces,
        Histogram flashHitLatencyNanos) {

    public long hits() {
        return memoryHits + dramHits + flashHits;
    }

    /** The counters, without the histogram's bucket dump. */
    @Override
    public String toString() {
        return "hits memory=" + memoryHits + " dram=" + dramHits + " flash=" + flashHits + ", misses=" + misses
                + ", puts=" + puts + " (already cached " + putsAlreadyCached + ", uncacheable " + uncacheable
                + "), dropped: queue full=" + droppedQueueFull + " evicted before write=" + droppedEvictedBeforeWrite
                + " no space=" + droppedNoSpace + ", flash writes=" + flashWrites + " (" + flashBytesWritten
                + " B), flash read=" + flashBytesRead + " B, errors: checksum=" + checksumErrors + " read=" + readErrors
                + " write=" + writeErrors + " timeout=" + readTimeouts + ", stale reads=" + staleReads + ", evictions="
                + evictions + ", invalidations=" + invalidations + ", migrations=" + migrations + ", read-aheads="
                + readAheads + ", paired reads=" + pairedReads + " (followers served " + followersServed + "), checkpoints="
                + checkpoints + " (failed " + checkpointFailures + ", last #"
                + lastCheckpointSequence + ", changes since " + changesSinceCheckpoint + "), recovered=" + recoveredEntries + ", entries=" + entries + " (" + weightedBlocks + " blocks), queued=" + queuedChunks
                + " (" + queuedBytes + " B), spaces=" + spaces;
    }

    public double hitRate() {
        long requests = hits() + misses;
        return requests == 0 ? 0 : (double) hits() / requests;
    }

    /** Times a device was taken out of use as slow, failing or hung (the slow-device breaker). */
    public long deviceBypasses() {
        return spaces.stream().mapToLong(SpaceStats::bypasses).sum();
    }

    /** Hits that were misses because their device was out of use. */
    public long bypassedReads() {
        return spaces.stream().mapToLong(SpaceStats::bypassedReads).sum();
    }

    /** Devices out of use now. */
    public int devicesBypassed() {
        return (int) spaces.stream().filter(SpaceStats::bypassed).count();
    }

    /**
     * One address space.
     *
     * @param bypassed      out of use now: the slow-device breaker tripped on it
     * @param bypasses      times the breaker tripped on it
     * @param bypassedReads hits that were misses because it was out of use
     */
    public record SpaceStats(int index, String path, long dataBlocks, long usedBlocks, long freeBlocks,
                             long heldBlocks, double readsPerSecond, double writesPerSecond, int writesInFlight,
                             boolean bypassed, long bypasses, long bypassedReads) {
    }
}

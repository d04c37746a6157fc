package io.flashchunk.cache;

import io.flashchunk.cache.engine.EngineStats;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.device.DeviceStats;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * One snapshot of the cache's counters since it started: the cache's own (what {@code get} and
 * {@code put} saw), the engine's record ({@link EngineStats}), and one line per address space.
 */
public final class CacheStats {
    private final long memoryHits;
    private final long dramHits;
    private final long flashHits;
    private final long misses;
    private final long puts;
    private final long uncacheable;
    private final long followersServed;
    private final long getFailures;
    private final long putFailures;
    private final long recoveredEntries;
    private final long usedBlocks;
    private final EngineStats engine;
    private final List<SpaceStats> spaces;
    private final Histogram flashHitLatencyNanos;
    private final Histogram recentHitLatencyNanos;

    /**
     * @param memoryHits            hits read from a segment buffer (chunks not yet on flash)
     * @param dramHits              hits served from the optional DRAM tier
     * @param flashHits             hits read from flash and verified (followers served included)
     * @param misses                gets that found nothing to serve
     * @param puts                  chunks offered to the engine
     * @param uncacheable           chunks not offered: unaligned, empty, longer than a record holds, or of
     *     an invalidated file
     * @param followersServed       next chunks read with an earlier hit that their reader then asked for
     * @param getFailures           gets that failed unexpectedly (fail-open: a miss)
     * @param putFailures           puts that failed unexpectedly (fail-open: not cached)
     * @param recoveredEntries      chunks the start brought back from the checkpoints
     * @param usedBlocks            4 KiB blocks of the segments that hold chunks (open, sealed, durable, doomed)
     * @param engine                the engine's counters
     * @param flashHitLatencyNanos  time of a hit from memory or flash inside {@code get}, nanoseconds (the DRAM
     *     tier's hits left out)
     * @param recentHitLatencyNanos the same, of the hits of about the last minute
     */
    public CacheStats(long memoryHits, long dramHits, long flashHits, long misses, long puts, long uncacheable,
                      long followersServed, long getFailures, long putFailures, long recoveredEntries, long usedBlocks,
                      EngineStats engine, List<SpaceStats> spaces, Histogram flashHitLatencyNanos,
                      Histogram recentHitLatencyNanos) {
        this.memoryHits = memoryHits;
        this.dramHits = dramHits;
        this.flashHits = flashHits;
        this.misses = misses;
        this.puts = puts;
        this.uncacheable = uncacheable;
        this.followersServed = followersServed;
        this.getFailures = getFailures;
        this.putFailures = putFailures;
        this.recoveredEntries = recoveredEntries;
        this.usedBlocks = usedBlocks;
        this.engine = engine;
        this.spaces = spaces;
        this.flashHitLatencyNanos = flashHitLatencyNanos;
        this.recentHitLatencyNanos = recentHitLatencyNanos;
    }

    public long memoryHits() {
        return memoryHits;
    }

    public long dramHits() {
        return dramHits;
    }

    public long flashHits() {
        return flashHits;
    }

    public long misses() {
        return misses;
    }

    public long puts() {
        return puts;
    }

    public long uncacheable() {
        return uncacheable;
    }

    public long followersServed() {
        return followersServed;
    }

    public long getFailures() {
        return getFailures;
    }

    public long putFailures() {
        return putFailures;
    }

    public long recoveredEntries() {
        return recoveredEntries;
    }

    public long usedBlocks() {
        return usedBlocks;
    }

    public EngineStats engine() {
        return engine;
    }

    public List<SpaceStats> spaces() {
        return spaces;
    }

    public Histogram flashHitLatencyNanos() {
        return flashHitLatencyNanos;
    }

    /** Hits of about the last minute, by how long {@code get} took (memory and flash hits; not the DRAM tier's). */
    public Histogram recentHitLatencyNanos() {
        return recentHitLatencyNanos;
    }

    public long hits() {
        return memoryHits + dramHits + flashHits;
    }

    public double hitRate() {
        long requests = hits() + misses;
        return requests == 0 ? 0 : (double) hits() / requests;
    }

    /** Flash reads that failed, and gets that failed for any other reason: all misses. */
    public long readErrors() {
        return engine.readErrors() + getFailures;
    }

    /** Segment writes that failed, and offers the writer or {@code put} failed on: chunks not cached. */
    public long writeErrors() {
        return engine.failedSegmentWrites() + engine.writerErrors() + putFailures;
    }

    /** Offers older than an invalidation of their key, and reads that met another chunk's record: never served. */
    public long staleReads() {
        return engine.offeredBeforeInvalidation() + engine.refusedRecords();
    }

    /** Times a device was taken out of use as slow, failing or hung (the slow-device breaker). */
    public long deviceBypasses() {
        return spaces.stream().mapToLong(SpaceStats::bypasses).sum();
    }

    /** Hits that were misses because their device was out of use. */
    public long bypassedReads() {
        return spaces.stream().mapToLong(SpaceStats::bypassedReads).sum();
    }

    /**
     * Bytes the cache's devices took, counted by each device: segments, their summaries, checkpoints
     * and superblocks. What the flash wears by; {@link EngineStats#flashBytesWritten} counts the
     * sealed segments alone.
     */
    public long deviceBytesWritten() {
        return spaces.stream().mapToLong(SpaceStats::bytesWritten).sum();
    }

    /** Devices out of use now. */
    public int devicesBypassed() {
        return (int) spaces.stream().filter(SpaceStats::bypassed).count();
    }

    /**
     * The counters on one line, without the histogram's buckets: the MXBean's Summary and the closing
     * log line, which scripts read ("hits memory=", "flash=", "misses=", "flash writes=", "paired reads=",
     * "followers served", "checkpoints=").
     */
    @Override
    public String toString() {
        EngineStats e = engine;
        return "hits memory=" + memoryHits + " dram=" + dramHits + " flash=" + flashHits + ", misses=" + misses
                + ", puts=" + puts + " (already cached " + e.alreadyCached() + ", uncacheable " + uncacheable
                + "), dropped: queue full=" + e.queueFull() + " not admitted=" + e.notAdmitted() + " no segment="
                + e.dropped() + " invalidated=" + e.offeredBeforeInvalidation() + ", flash writes=" + e.appended()
                + " (" + e.flashBytesWritten() + " B, reinserted " + e.reinserted() + "), device bytes written="
                + deviceBytesWritten() + ", segments sealed="
                + e.segmentsSealed() + " reclaimed=" + e.segmentsReclaimed() + ", flash read=" + e.flashBytesRead()
                + " B, paired reads=" + e.pairedReads() + " (followers served " + followersServed + "), errors: checksum=" + e.damagedRecords() + " read="
                + readErrors() + " write=" + writeErrors() + " timeout=" + e.readTimeouts() + " busy=" + e.busyMisses()
                + " other record="
                + e.refusedRecords() + ", invalidations=" + e.invalidations() + ", checkpoints=" + e.checkpoints()
                + " (failed " + e.failedCheckpoints() + ", last #" + e.lastCheckpointSequence() + ", appended since "
                + e.appendedSinceCheckpoint() + "), recovered=" + recoveredEntries + ", entries=" + e.entries() + " ("
                + usedBlocks + " blocks), " + e.deadSpace() + ", queued=" + e.queuedBytes() + " B, spaces=" + spaces;
    }

    /**
     * One address space and its device: blocks are the 4 KiB blocks of its segments; reads of hits
     * are those the cache sent to this device, as its slow-device breaker saw them.
     */
    public static final class SpaceStats {
        private final int index;
        private final String path;
        private final io.flashchunk.device.IoEngine engine;
        private final long dataBlocks;
        private final long[] segments;
        private final long segmentBlocks;
        private final int writesInFlight;
        private final boolean bypassed;
        private final long bypasses;
        private final long bypassedReads;
        private final long hitReads;
        private final long failedHitReads;
        private final long hitReadNanos;
        private final long busyMisses;
        private final DeviceStats device;

        /**
         * @param engine         how the device moves bytes
         * @param segments       per {@link SegmentState} (by ordinal), how many of its segments are in it
         * @param segmentBlocks  blocks a segment takes
         * @param bypassed       out of use now: the slow-device breaker tripped on it
         * @param bypasses       times the breaker tripped on it
         * @param bypassedReads  hits that were misses because it was out of use
         * @param hitReads       flash reads of hits that returned the record (checked or not later)
         * @param failedHitReads flash reads of hits that failed or were given up
         * @param hitReadNanos   time the hits' flash reads took, the failed ones included (at least
         *                       1 ns each)
         * @param busyMisses     hits that found the device with as many reads in flight as it may
         *                       and were misses without a read (each counts a read timeout of load)
         * @param device         the device's own counters since the cache opened it, everything counted
         */
        public SpaceStats(int index, String path, io.flashchunk.device.IoEngine engine, long dataBlocks, long[] segments,
                          long segmentBlocks,
                          int writesInFlight, boolean bypassed, long bypasses, long bypassedReads, long hitReads,
                          long failedHitReads, long hitReadNanos, long busyMisses, DeviceStats device) {
            if (segments.length != SegmentState.values().length) {
                throw new IllegalArgumentException("one count per segment state, not " + segments.length);
            }
            this.index = index;
            this.path = path;
            this.engine = engine;
            this.dataBlocks = dataBlocks;
            this.segments = segments.clone();
            this.segmentBlocks = segmentBlocks;
            this.writesInFlight = writesInFlight;
            this.bypassed = bypassed;
            this.bypasses = bypasses;
            this.bypassedReads = bypassedReads;
            this.hitReads = hitReads;
            this.failedHitReads = failedHitReads;
            this.hitReadNanos = hitReadNanos;
            this.busyMisses = busyMisses;
            this.device = device;
        }

        public int index() {
            return index;
        }

        public String path() {
            return path;
        }

        public io.flashchunk.device.IoEngine engine() {
            return engine;
        }

        public long dataBlocks() {
            return dataBlocks;
        }

        /** Segments in {@code state} now. */
        public long segments(SegmentState state) {
            return segments[state.ordinal()];
        }

        /** Blocks of the segments that hold chunks: open, sealed, durable, doomed. */
        public long usedBlocks() {
            return dataBlocks - freeBlocks() - heldBlocks();
        }

        public long freeBlocks() {
            return segments(SegmentState.FREE) * segmentBlocks;
        }

        /** Blocks of segments reclaimed and waiting for the next checkpoint, being reclaimed, or being discarded. */
        public long heldBlocks() {
            return (segments(SegmentState.RETIRED) + segments(SegmentState.RECLAIMING)
                    + segments(SegmentState.DISCARDING)) * segmentBlocks;
        }

        public int writesInFlight() {
            return writesInFlight;
        }

        public boolean bypassed() {
            return bypassed;
        }

        public long bypasses() {
            return bypasses;
        }

        public long bypassedReads() {
            return bypassedReads;
        }

        public long hitReads() {
            return hitReads;
        }

        public long failedHitReads() {
            return failedHitReads;
        }

        public long hitReadNanos() {
            return hitReadNanos;
        }

        public long busyMisses() {
            return busyMisses;
        }

        public DeviceStats device() {
            return device;
        }

        /** Bytes the device took since the cache opened it: segments, summaries, checkpoints, superblocks. */
        public long bytesWritten() {
            return device.writeBytes();
        }

        @Override
        public String toString() {
            return "SpaceStats[index=" + index + ", path=" + path + ", engine=" + engine.configName() + ", dataBlocks=" + dataBlocks
                    + ", usedBlocks=" + usedBlocks() + ", freeBlocks=" + freeBlocks() + ", heldBlocks=" + heldBlocks()
                    + ", writesInFlight=" + writesInFlight + ", bypassed=" + bypassed + ", bypasses=" + bypasses
                    + ", bypassedReads=" + bypassedReads + ", hitReads=" + hitReads + ", failedHitReads="
                    + failedHitReads + ", hitReadNanos=" + hitReadNanos + ", busyMisses=" + busyMisses + ", bytesWritten=" + bytesWritten() + "]";
        }
    }
}

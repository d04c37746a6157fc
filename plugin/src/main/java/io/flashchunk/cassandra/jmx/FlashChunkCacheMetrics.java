package io.flashchunk.cassandra.jmx;

import io.flashchunk.cache.CacheStats;
import io.flashchunk.cache.FlashCache;
import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.List;
import javax.management.AttributeList;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.HdrHistogram.Histogram;

/**
 * The MXBean over one running cache. A client reading several attributes in one call
 * ({@code getAttributes}, as JMX exporters and {@code sjk mxdump} do) gets them all from one snapshot
 * of the cache's statistics: they agree with each other, and the scrape costs one snapshot, not one
 * per attribute. An attribute read on its own is always current.
 */
public final class FlashChunkCacheMetrics implements FlashChunkCacheMXBean {
    public static final String OBJECT_NAME = "io.flashchunk:type=FlashChunkCache";

    private final FlashCache cache;
    private final AdapterCounters adapter;
    /** The snapshot of the bulk read this thread is serving, if any. */
    private final ThreadLocal<CacheStats> scrape = new ThreadLocal<>();

    public FlashChunkCacheMetrics(FlashCache cache, AdapterCounters adapter) {
        this.cache = cache;
        this.adapter = adapter;
    }

    /**
     * Registers this bean and one {@link FlashChunkDeviceMXBean} per device on the platform MBean server
     * (the one Cassandra's JMX port serves), replacing stale ones.
     */
    public ObjectName register() throws JMException {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (ObjectName stale : server.queryNames(new ObjectName("io.flashchunk:type=" + FlashChunkDeviceMetrics.TYPE
                + ",*"), null)) {
            server.unregisterMBean(stale);
        }
        ObjectName name = new ObjectName(OBJECT_NAME);
        if (server.isRegistered(name)) {
            server.unregisterMBean(name);
        }
        server.registerMBean(asMBean(), name);
        for (CacheStats.SpaceStats space : cache.stats().spaces()) {
            server.registerMBean(new FlashChunkDeviceMetrics(cache, space.index()).asMBean(),
                    FlashChunkDeviceMetrics.objectName(space.index(), space.path()));
        }
        return name;
    }

    /** This bean as the MBean server sees it: an MXBean whose bulk reads share one snapshot. */
    StandardMBean asMBean() {
        return new StandardMBean(this, FlashChunkCacheMXBean.class, true) {
            @Override
            public AttributeList getAttributes(String[] attributes) {
                scrape.set(cache.stats());
                try {
                    return super.getAttributes(attributes);
                } finally {
                    scrape.remove();
                }
            }
        };
    }

    /** The snapshot of the bulk read in progress on this thread, or a fresh one. */
    private CacheStats stats() {
        CacheStats inScrape = scrape.get();
        return inScrape != null ? inScrape : cache.stats();
    }

    @Override
    public long getHits() {
        return stats().hits();
    }

    @Override
    public long getRecentHits() {
        return stats().recentHitLatencyNanos().getTotalCount();
    }

    @Override
    public double getHitLatency50thPercentileMicros() {
        return recentHitMicros(50);
    }

    @Override
    public double getHitLatency99thPercentileMicros() {
        return recentHitMicros(99);
    }

    @Override
    public double getHitLatency999thPercentileMicros() {
        return recentHitMicros(99.9);
    }

    @Override
    public double getHitLatencyMaxMicros() {
        return recentHitMicros(100);
    }

    private double recentHitMicros(double percentile) {
        Histogram recent = stats().recentHitLatencyNanos();
        return recent.getTotalCount() == 0 ? Double.NaN : recent.getValueAtPercentile(percentile) / 1_000.0;
    }

    @Override
    public long getFlashHits() {
        return stats().flashHits();
    }

    @Override
    public long getMemoryHits() {
        return stats().memoryHits();
    }

    @Override
    public long getDramHits() {
        return stats().dramHits();
    }

    @Override
    public long getMisses() {
        return stats().misses();
    }

    @Override
    public double getHitRate() {
        return stats().hitRate();
    }

    @Override
    public long getEntries() {
        return stats().engine().entries();
    }

    @Override
    public long getCapacityBytes() {
        return cache.capacityBytes();
    }

    @Override
    public long getUsedBytes() {
        return stats().usedBlocks() * BlockDevice.BLOCK_SIZE;
    }

    @Override
    public long getPuts() {
        return stats().puts();
    }

    @Override
    public long getDroppedQueueFull() {
        return stats().engine().queueFull();
    }

    @Override
    public long getAdmissionRefusals() {
        return stats().engine().notAdmitted();
    }

    @Override
    @Deprecated
    public long getDroppedEvictedBeforeWrite() {
        return getAdmissionRefusals();
    }

    @Override
    public long getDroppedNoSpace() {
        return stats().engine().dropped();
    }

    @Override
    public long getFlashBytesRead() {
        return stats().engine().flashBytesRead();
    }

    @Override
    public long getFlashBytesWritten() {
        return stats().deviceBytesWritten();
    }

    @Override
    public long getSegmentBytesWritten() {
        return stats().engine().flashBytesWritten();
    }

    @Override
    public long getChecksumErrors() {
        return stats().engine().damagedRecords();
    }

    @Override
    public long getReadErrors() {
        return stats().readErrors();
    }

    @Override
    public long getWriteErrors() {
        return stats().writeErrors();
    }

    @Override
    public long getReadTimeouts() {
        return stats().engine().readTimeouts();
    }

    @Override
    public long getBusyDeviceMisses() {
        return stats().engine().busyMisses();
    }

    @Override
    public long getDeviceBypasses() {
        return stats().deviceBypasses();
    }

    @Override
    public long getBypassedReads() {
        return stats().bypassedReads();
    }

    @Override
    public int getDevicesBypassed() {
        return stats().devicesBypassed();
    }

    @Override
    public long getSegmentsReclaimed() {
        return stats().engine().segmentsReclaimed();
    }

    @Override
    @Deprecated
    public long getEvictions() {
        return getSegmentsReclaimed();
    }

    @Override
    public long getChangesSinceCheckpoint() {
        return stats().engine().appendedSinceCheckpoint();
    }

    @Override
    public long getDeadChunks() {
        return stats().engine().deadSpace().deadRecords();
    }

    @Override
    public int getDeadFilesPending() {
        return stats().engine().deadSpace().deadFilesPending();
    }

    @Override
    public long getDeadFileChunksRemoved() {
        return stats().engine().deadSpace().deadFileChunksRemoved();
    }

    @Override
    public long getMostlyDeadSegmentsDoomed() {
        return stats().engine().deadSpace().mostlyDeadSegmentsDoomed();
    }

    @Override
    public long getCompressedChunks() {
        return stats().engine().compression().compressedChunks();
    }

    @Override
    public long getCompressedChunkBytes() {
        return stats().engine().compression().chunkBytes();
    }

    @Override
    public long getCompressedPayloadBytes() {
        return stats().engine().compression().payloadBytes();
    }

    @Override
    public long getChunksNotWorthCompressing() {
        return stats().engine().compression().notWorthCompressing();
    }

    @Override
    public long getChunksDecompressed() {
        return stats().engine().compression().decompressed();
    }

    @Override
    public long getSecondReads() {
        return stats().engine().compression().secondReads();
    }

    @Override
    public long getHotChunkMovesTaken() {
        return stats().engine().hotChunkMovesTaken();
    }

    @Override
    public long getHotChunksMoved() {
        return stats().engine().hotChunksMoved();
    }

    @Override
    public long getHotChunkMoveRoomSegments() {
        return stats().engine().segmentsDoomedForMoves();
    }

    @Override
    public long getPairedReads() {
        return stats().engine().pairedReads();
    }

    @Override
    public long getFollowersServed() {
        return stats().followersServed();
    }

    @Override
    public long getInvalidations() {
        return stats().engine().invalidations();
    }

    @Override
    public long getCheckpoints() {
        return stats().engine().checkpoints();
    }

    @Override
    public long getCheckpointFailures() {
        return stats().engine().failedCheckpoints();
    }

    @Override
    public long getDeltaCheckpoints() {
        return stats().engine().deltaCheckpoints();
    }

    @Override
    public long getCheckpointBytesWritten() {
        return stats().engine().checkpointBytesWritten();
    }

    @Override
    public long getLastCheckpointSequence() {
        return stats().engine().lastCheckpointSequence();
    }

    @Override
    public long getLastCheckpointTime() {
        return stats().engine().lastCheckpointMillis();
    }

    @Override
    public long getRecoveredEntries() {
        return stats().recoveredEntries();
    }

    @Override
    public long getQueuedBytes() {
        return stats().engine().queuedBytes();
    }

    @Override
    public long getCacheFailures() {
        return adapter.cacheFailures();
    }

    @Override
    public long getOutOfMemory() {
        return adapter.outOfMemory();
    }

    @Override
    public long getLengthMismatches() {
        return adapter.lengthMismatches();
    }

    @Override
    public long getPositionInvalidations() {
        return adapter.positionInvalidations();
    }

    @Override
    public long getUncachedFiles() {
        return adapter.uncachedFiles();
    }

    @Override
    public long getWatchedFiles() {
        return adapter.watchedFiles();
    }

    @Override
    public String getCachedFiles() {
        return describeFiles(cache.files().live());
    }

    /** One line per file, its path, sorted. */
    static String describeFiles(List<CachedFile> files) {
        StringBuilder text = new StringBuilder();
        files.stream().map(CachedFile::path).sorted().forEach(path -> text.append(path).append('\n'));
        return text.toString();
    }

    @Override
    public String getSummary() {
        return stats().toString();
    }

    @Override
    public String checkpoint() {
        try {
            return cache.checkpointNow();
        } catch (IOException | RuntimeException e) {
            return "checkpoint failed: " + e;
        }
    }
}

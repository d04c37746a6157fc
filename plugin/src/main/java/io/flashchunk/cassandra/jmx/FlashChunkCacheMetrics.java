package io.flashchunk.cassandra.jmx;

import io.flashchunk.cache.CacheConfig;
import io.flashchunk.cache.CacheStats;
import io.flashchunk.cache.FlashCache;
import io.flashchunk.cache.index.CachedFile;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.Comparator;
import java.util.List;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/** The MXBean over one running cache; each getter takes a fresh snapshot (cheap: counters only). */
public final class FlashChunkCacheMetrics implements FlashChunkCacheMXBean {
    public static final String OBJECT_NAME = "io.flashchunk:type=FlashChunkCache";

    private final FlashCache cache;
    private final AdapterCounters adapter;

    public FlashChunkCacheMetrics(FlashCache cache, AdapterCounters adapter) {
        this.cache = cache;
        this.adapter = adapter;
    }

    /** Registers on the platform MBean server (the one Cassandra's JMX port serves), replacing a stale one. */
    public ObjectName register() throws JMException {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName(OBJECT_NAME);
        if (server.isRegistered(name)) {
            server.unregisterMBean(name);
        }
        server.registerMBean(this, name);
        return name;
    }

    private CacheStats stats() {
        return cache.stats();
    }

    @Override
    public long getHits() {
        return stats().hits();
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
        return cache.entries();
    }

    @Override
    public long getCapacityBytes() {
        return cache.capacityBytes();
    }

    @Override
    public long getUsedBytes() {
        return cache.weightedBytes();
    }

    @Override
    public long getPuts() {
        return stats().puts();
    }

    @Override
    public long getDroppedQueueFull() {
        return stats().droppedQueueFull();
    }

    @Override
    public long getDroppedEvictedBeforeWrite() {
        return stats().droppedEvictedBeforeWrite();
    }

    @Override
    public long getDroppedNoSpace() {
        return stats().droppedNoSpace();
    }

    @Override
    public long getFlashBytesRead() {
        return stats().flashBytesRead();
    }

    @Override
    public long getFlashBytesWritten() {
        return stats().flashBytesWritten();
    }

    @Override
    public long getChecksumErrors() {
        return stats().checksumErrors();
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
        return stats().readTimeouts();
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
    public long getEvictions() {
        return stats().evictions();
    }

    @Override
    public long getChangesSinceCheckpoint() {
        return stats().changesSinceCheckpoint();
    }

    @Override
    public long getPairedReads() {
        return stats().pairedReads();
    }

    @Override
    public long getFollowersServed() {
        return stats().followersServed();
    }

    @Override
    public long getInvalidations() {
        return stats().invalidations();
    }

    @Override
    public long getCheckpoints() {
        return stats().checkpoints();
    }

    @Override
    public long getCheckpointFailures() {
        return stats().checkpointFailures();
    }

    @Override
    public long getLastCheckpointSequence() {
        return stats().lastCheckpointSequence();
    }

    @Override
    public long getRecoveredEntries() {
        return stats().recoveredEntries();
    }

    @Override
    public long getQueuedBytes() {
        return stats().queuedBytes();
    }

    @Override
    public long getCacheFailures() {
        return adapter.cacheFailures();
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

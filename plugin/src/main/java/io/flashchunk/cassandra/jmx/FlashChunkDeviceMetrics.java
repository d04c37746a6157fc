package io.flashchunk.cassandra.jmx;

import io.flashchunk.cache.CacheStats;
import io.flashchunk.cache.FlashCache;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.device.BlockDevice;
import javax.management.AttributeList;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/** The MXBean over one of the cache's devices; like {@link FlashChunkCacheMetrics}, one snapshot a bulk read. */
final class FlashChunkDeviceMetrics implements FlashChunkDeviceMXBean {
    static final String TYPE = "FlashChunkDevice";

    private final FlashCache cache;
    private final int space;
    private final ThreadLocal<CacheStats.SpaceStats> scrape = new ThreadLocal<>();

    FlashChunkDeviceMetrics(FlashCache cache, int space) {
        this.cache = cache;
        this.space = space;
    }

    /** {@code io.flashchunk:type=FlashChunkDevice,space=N,path="..."}: the path quoted, as any path may hold ':' or ','. */
    static ObjectName objectName(int space, String path) throws MalformedObjectNameException {
        return new ObjectName("io.flashchunk:type=" + TYPE + ",space=" + space + ",path=" + ObjectName.quote(path));
    }

    StandardMBean asMBean() {
        return new StandardMBean(this, FlashChunkDeviceMXBean.class, true) {
            @Override
            public AttributeList getAttributes(String[] attributes) {
                scrape.set(current());
                try {
                    return super.getAttributes(attributes);
                } finally {
                    scrape.remove();
                }
            }
        };
    }

    private CacheStats.SpaceStats current() {
        return cache.spaceStats().get(space);
    }

    private CacheStats.SpaceStats stats() {
        CacheStats.SpaceStats inScrape = scrape.get();
        return inScrape != null ? inScrape : current();
    }

    @Override
    public String getPath() {
        return stats().path();
    }

    @Override
    public String getEngine() {
        return stats().engine().configName();
    }

    @Override
    public long getHitReads() {
        return stats().hitReads();
    }

    @Override
    public long getFailedHitReads() {
        return stats().failedHitReads();
    }

    @Override
    public long getHitReadNanos() {
        return stats().hitReadNanos();
    }

    @Override
    public long getBusyMisses() {
        return stats().busyMisses();
    }

    @Override
    public long getReads() {
        return stats().device().readOps();
    }

    @Override
    public long getWrites() {
        return stats().device().writeOps();
    }

    @Override
    public long getBytesRead() {
        return stats().device().readBytes();
    }

    @Override
    public long getBytesWritten() {
        return stats().bytesWritten();
    }

    @Override
    public long getReadErrors() {
        return stats().device().readErrors();
    }

    @Override
    public long getWriteErrors() {
        return stats().device().writeErrors();
    }

    @Override
    public boolean isBypassed() {
        return stats().bypassed();
    }

    @Override
    public long getBypasses() {
        return stats().bypasses();
    }

    @Override
    public long getBypassedReads() {
        return stats().bypassedReads();
    }

    @Override
    public int getWritesInFlight() {
        return stats().writesInFlight();
    }

    @Override
    public long getCapacityBytes() {
        return stats().dataBlocks() * BlockDevice.BLOCK_SIZE;
    }

    @Override
    public long getUsedBytes() {
        return stats().usedBlocks() * BlockDevice.BLOCK_SIZE;
    }

    @Override
    public long getFreeSegments() {
        return stats().segments(SegmentState.FREE);
    }

    @Override
    public long getOpenSegments() {
        return stats().segments(SegmentState.OPEN);
    }

    @Override
    public long getSealedSegments() {
        return stats().segments(SegmentState.SEALED);
    }

    @Override
    public long getDurableSegments() {
        return stats().segments(SegmentState.DURABLE);
    }

    @Override
    public long getDoomedSegments() {
        return stats().segments(SegmentState.DOOMED);
    }

    @Override
    public long getReclaimingSegments() {
        return stats().segments(SegmentState.RECLAIMING);
    }

    @Override
    public long getRetiredSegments() {
        return stats().segments(SegmentState.RETIRED);
    }

    @Override
    public long getDiscardingSegments() {
        return stats().segments(SegmentState.DISCARDING);
    }
}

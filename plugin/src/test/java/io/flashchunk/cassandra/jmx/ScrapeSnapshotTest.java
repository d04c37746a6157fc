package io.flashchunk.cassandra.jmx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.CacheConfig;
import io.flashchunk.cache.CompactChunkCache;
import io.flashchunk.cache.FlashCache;
import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.cache.index.FileIdentity;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.testing.Backend;
import io.flashchunk.testing.CountingCache;
import io.flashchunk.testing.ManualClock;
import io.flashchunk.testing.Scratch;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A scrape of every attribute reads one snapshot of the cache's statistics, not one per attribute. */
class ScrapeSnapshotTest {

    @Test
    void attributesReadWithinASecondComeFromOneSnapshotAndAgree() throws Exception {
        Path device = Scratch.file("scrape", 8L << 20);
        DeviceSpec spec = Backend.LIBAIO.spec(device).withQueueDepth(8);
        CacheConfig config = CacheConfig.builder().device(spec).segmentBytes(1 << 20).build();
        ManualClock clock = new ManualClock();
        AtomicInteger snapshots = new AtomicInteger();
        try (CompactChunkCache real = new CompactChunkCache(config, List.of(BlockDevices.open(spec)), System::nanoTime)) {
            FlashCache cache = CountingCache.counting(real, "stats", snapshots);
            FlashChunkCacheMetrics bean = new FlashChunkCacheMetrics(cache, null, clock);
            CachedFile file = real.registerFile(new FileIdentity("/data/scrape-Data.db", 1 << 20, 1, 1, 1, 1));
            assertEquals(0, bean.getMisses() + bean.getHits() + bean.getPuts() + bean.getQueuedBytes() + bean.getEntries());
            assertEquals(1, snapshots.get(), "five attributes, one snapshot");

            real.get(file, 0, 4096, false); // a miss the snapshot taken before does not show
            real.put(file, 0, ByteBuffer.allocate(4096), System.nanoTime());
            clock.advance(Duration.ofMillis(900));
            assertEquals(0, bean.getMisses(), "the same scrape's snapshot");
            assertEquals(0, bean.getPuts());
            bean.getSummary();
            assertEquals(1, snapshots.get());

            clock.advance(Duration.ofMillis(100));
            assertEquals(1, bean.getMisses(), "a second on: a new snapshot");
            assertEquals(1, bean.getPuts());
            assertEquals(2, snapshots.get());
            assertTrue(bean.getSummary().startsWith("hits memory=0 dram=0 flash=0, misses=1, puts=1"), bean.getSummary());
        } finally {
            Files.deleteIfExists(device);
        }
    }
}

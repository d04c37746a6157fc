package io.flashchunk.cassandra.jmx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.CacheConfig;
import io.flashchunk.cache.SegmentFlashCache;
import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.testing.Backend;
import io.flashchunk.testing.CountingCache;
import io.flashchunk.testing.Scratch;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.StandardMBean;
import org.junit.jupiter.api.Test;

/** A scrape of many attributes in one call reads one snapshot of the cache's statistics; a single read is current. */
class ScrapeSnapshotTest {
    private static final String[] SCRAPE = {"Hits", "Misses", "Puts", "QueuedBytes", "Entries", "ReadErrors", "Summary"};

    @Test
    void aBulkReadTakesOneSnapshotAndASingleReadIsCurrent() throws Exception {
        Path device = Scratch.file("scrape", 8L << 20);
        DeviceSpec spec = Backend.LIBAIO.spec(device).withQueueDepth(8);
        CacheConfig config = CacheConfig.builder().device(spec).segmentBytes(1 << 20).build();
        AtomicInteger snapshots = new AtomicInteger();
        try (SegmentFlashCache real = new SegmentFlashCache(config, List.of(BlockDevices.open(spec)), System::nanoTime)) {
            StandardMBean bean = new FlashChunkCacheMetrics(CountingCache.counting(real, "stats", snapshots), null).asMBean();
            CachedFile file = real.registerFile(new FileIdentity("/data/scrape-Data.db", 1 << 20, 1, 1, 1, 1));
            real.get(file, 0, 4096, false);
            real.put(file, 0, ByteBuffer.allocate(4096), System.nanoTime());

            AttributeList scraped = bean.getAttributes(SCRAPE);
            assertEquals(SCRAPE.length, scraped.size());
            assertEquals(1, snapshots.get(), SCRAPE.length + " attributes, one snapshot");
            assertEquals(1L, value(scraped, "Misses"));
            assertEquals(1L, value(scraped, "Puts"));
            String summary = (String) value(scraped, "Summary");
            assertTrue(summary.startsWith("hits memory=0 dram=0 flash=0, misses=1, puts=1"), summary);
            // scripts/cluster_steps.py reads the checkpoint figures from here
            assertTrue(summary.matches(".*checkpoints=\\d+ \\(failed \\d+, last #\\d+, appended since \\d+\\).*"), summary);

            real.get(file, 4096, 4096, false);
            assertEquals(2L, bean.getAttribute("Misses"), "a single read is current");
            assertEquals(2, snapshots.get());
            assertEquals(2L, value(bean.getAttributes(SCRAPE), "Misses"));
            assertEquals(3, snapshots.get(), "the next scrape, its own snapshot");
        } finally {
            Files.deleteIfExists(device);
        }
    }

    @Test
    void theRenamedAttributesAnswerUnderBothNames() throws Exception {
        Path device = Scratch.file("renamed", 8L << 20);
        DeviceSpec spec = Backend.LIBAIO.spec(device).withQueueDepth(8);
        CacheConfig config = CacheConfig.builder().device(spec).segmentBytes(1 << 20).build();
        try (SegmentFlashCache real = new SegmentFlashCache(config, List.of(BlockDevices.open(spec)), System::nanoTime)) {
            StandardMBean bean = new FlashChunkCacheMetrics(real, null).asMBean();
            List<String> names = java.util.Arrays.stream(bean.getMBeanInfo().getAttributes())
                    .map(javax.management.MBeanAttributeInfo::getName).toList();
            assertTrue(names.containsAll(List.of("AdmissionRefusals", "DroppedEvictedBeforeWrite", "SegmentsReclaimed",
                    "Evictions")), names.toString());
            assertEquals(bean.getAttribute("AdmissionRefusals"), bean.getAttribute("DroppedEvictedBeforeWrite"));
            assertEquals(bean.getAttribute("SegmentsReclaimed"), bean.getAttribute("Evictions"));
        } finally {
            Files.deleteIfExists(device);
        }
    }

    private static Object value(AttributeList list, String name) {
        return list.asList().stream().filter(a -> a.getName().equals(name)).map(Attribute::getValue).findFirst()
                .orElseThrow(() -> new AssertionError("no attribute " + name + " in " + list));
    }
}

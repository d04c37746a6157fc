package io.flashchunk.cassandra.jmx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.CacheConfig;
import io.flashchunk.cache.CachedChunk;
import io.flashchunk.cache.SegmentFlashCache;
import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.testing.Backend;
import io.flashchunk.testing.Scratch;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a dashboard reads: one bean per device (its hits, reads, segments by state, breaker), the
 * time of the newest checkpoint (this run's or the recovered one's) and the latency of recent hits.
 */
class DeviceBeansTest {
    private static final int CHUNK = 4096;
    private static final int CHUNKS = 300;
    private static final int SEGMENT = 1 << 20;

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final List<Path> devices = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (ObjectName name : server.queryNames(new ObjectName("io.flashchunk:*"), null)) {
            server.unregisterMBean(name);
        }
        for (Path device : devices) {
            Files.deleteIfExists(device);
        }
    }

    private SegmentFlashCache open(CacheConfig config) throws Exception {
        return new SegmentFlashCache(config, BlockDevices.openAll(config.devices()), System::nanoTime);
    }

    @Test
    void eachDeviceHasABeanAndTheCacheTellsItsCheckpointTimeAndRecentHitLatency() throws Exception {
        List<DeviceSpec> specs = new ArrayList<>();
        CacheConfig.Builder builder = CacheConfig.builder().segmentBytes(SEGMENT);
        // one device on each engine that a node's file or block device can have
        for (Backend backend : new Backend[] {Backend.LIBAIO, Backend.IO_URING}) {
            Path device = Scratch.file("beans-" + backend, 8L << 20);
            devices.add(device);
            DeviceSpec spec = backend.spec(device).withQueueDepth(8);
            specs.add(spec);
            builder.device(spec);
        }
        CacheConfig config = builder.build();
        Path sstable = Scratch.file("beans-Data.db", 4L << 20); // recovery keeps the files still on disk
        devices.add(sstable);
        long beforeCheckpoint = System.currentTimeMillis();
        try (SegmentFlashCache cache = open(config)) {
            CachedFile file = cache.registerFile(FileIdentity.of(sstable));
            for (int i = 0; i < CHUNKS; i++) {
                ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
                chunk.putInt(0, i);
                cache.put(file, (long) i * CHUNK, chunk, System.nanoTime());
            }
        } // closing writes the queue and a last checkpoint
        long afterCheckpoint = System.currentTimeMillis();

        try (SegmentFlashCache cache = open(config)) {
            ObjectName cacheName = new FlashChunkCacheMetrics(cache, null).register();
            long checkpointTime = (Long) server.getAttribute(cacheName, "LastCheckpointTime");
            assertTrue(checkpointTime >= beforeCheckpoint && checkpointTime <= afterCheckpoint,
                    "the recovered checkpoint's time, " + checkpointTime);
            assertEquals(0L, server.getAttribute(cacheName, "RecentHits"));
            assertTrue(Double.isNaN((Double) server.getAttribute(cacheName, "HitLatency99thPercentileMicros")),
                    "no hits yet: no latency");

            CachedFile file = cache.registerFile(FileIdentity.of(sstable));
            long hits = 0;
            for (int i = 0; i < CHUNKS; i++) {
                CachedChunk chunk = cache.get(file, (long) i * CHUNK, CHUNK, false);
                if (chunk != null) {
                    hits++;
                    chunk.release();
                }
            }
            assertTrue(hits > CHUNKS / 2, "most chunks come back from flash: " + hits);

            List<ObjectName> names = new ArrayList<>(server.queryNames(new ObjectName("io.flashchunk:type=FlashChunkDevice,*"), null));
            names.sort(java.util.Comparator.comparingInt(name -> Integer.parseInt(name.getKeyProperty("space"))));
            assertEquals(2, names.size(), names.toString());
            long hitReads = 0;
            int space = 0;
            for (ObjectName name : names) {
                assertEquals(Integer.toString(space), name.getKeyProperty("space"));
                assertEquals(specs.get(space).path().toString(), server.getAttribute(name, "Path"));
                assertEquals(specs.get(space).engine().configName(), server.getAttribute(name, "Engine"));
                assertEquals(ObjectName.unquote(name.getKeyProperty("path")), server.getAttribute(name, "Path"));
                long reads = (Long) server.getAttribute(name, "HitReads");
                assertTrue(reads > 0, "the load is spread over both devices: " + name);
                assertTrue((Long) server.getAttribute(name, "Reads") >= reads, "every read of a hit is a device read");
                assertEquals(cache.spaceStats().get(space).hitReadNanos(), server.getAttribute(name, "HitReadNanos"),
                        "the device's own read time (the cache is idle): " + name);
                assertTrue((Long) server.getAttribute(name, "HitReadNanos") >= reads, "at least 1 ns a read: " + name);
                assertEquals(0L, server.getAttribute(name, "BusyMisses"));
                assertTrue((Long) server.getAttribute(name, "BytesWritten") > 0, "the superblock at least");
                assertFalse((Boolean) server.getAttribute(name, "Bypassed"));
                long segments = 0;
                for (String state : new String[] {"Free", "Open", "Sealed", "Durable", "Doomed", "Reclaiming", "Retired", "Discarding"}) {
                    segments += (Long) server.getAttribute(name, state + "Segments");
                }
                assertEquals((Long) server.getAttribute(name, "CapacityBytes") / SEGMENT, segments,
                        "every segment is in one state");
                assertTrue((Long) server.getAttribute(name, "DurableSegments") > 0, "the recovered ones: " + name);
                hitReads += reads;
                space++;
            }
            assertEquals(cache.stats().flashHits(), hitReads, "a flash hit is one device read here (no followers asked for)");
            assertEquals(hits, server.getAttribute(cacheName, "RecentHits"));
            double p50 = (Double) server.getAttribute(cacheName, "HitLatency50thPercentileMicros");
            double p99 = (Double) server.getAttribute(cacheName, "HitLatency99thPercentileMicros");
            double max = (Double) server.getAttribute(cacheName, "HitLatencyMaxMicros");
            assertTrue(p50 > 0 && p50 <= p99 && p99 <= max, p50 + " " + p99 + " " + max);

            String summary = cache.checkpointNow();
            assertNotNull(summary);
            assertTrue((Long) server.getAttribute(cacheName, "LastCheckpointTime") >= afterCheckpoint,
                    "this run's checkpoint now");
        }
    }
}

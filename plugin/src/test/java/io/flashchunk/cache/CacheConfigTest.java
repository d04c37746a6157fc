package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.device.DeviceOpenException;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import io.flashchunk.testing.Scratch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Every bad setting is refused with a message that names it and its value. */
class CacheConfigTest {
    private static final Path DEVICE = Path.of("/var/lib/flashchunk/cache.img");

    private static void assertRejected(String expectedText, Consumer<CacheConfig.Builder> settings) {
        CacheConfig.Builder builder = CacheConfig.builder().device(DeviceSpec.of(DEVICE));
        settings.accept(builder);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
        assertTrue(e.getMessage().contains(expectedText), "message '" + e.getMessage() + "' lacks '" + expectedText + "'");
    }

    @Test
    void badSizesAndTimesAreNamed() {
        assertRejected("queue_size: must be positive, got 0", c -> c.queueBytes(0));
        assertRejected("queue_size: must be positive, got -5", c -> c.queueBytes(-5));
        assertRejected("max_writes_in_flight: must be positive, got 0", c -> c.maxWritesInFlight(0));
        assertRejected("read_timeout: must be positive, got 0", c -> c.readTimeoutMillis(0));
        assertRejected("slow_read: must be positive, got 0", c -> c.slowReadMillis(0));
        assertRejected("slow_device_retry: must be positive, got -1", c -> c.slowDeviceRetryMillis(-1));
        assertRejected("dram_tier_size: must not be negative, got -1", c -> c.dramTierBytes(-1));
        assertRejected("checkpoint_interval: must be positive, got 0", c -> c.checkpointIntervalMillis(0));
        assertRejected("checkpoint_change_percent: must be 0..100, got 101.0", c -> c.checkpointChangePercent(101));
        assertRejected("checkpoint_change_percent: must be 0..100, got -1.0", c -> c.checkpointChangePercent(-1));
        assertRejected("admission_sketch_counters: must be auto or 1..16, got -1", c -> c.admissionSketchCounters(-1));
        assertRejected("admission_sketch_counters: must be auto or 1..16, got 17", c -> c.admissionSketchCounters(17));
        assertRejected("admission_doorkeeper_bits: must be 0..64, got 65", c -> c.admissionDoorkeeperBits(65));
        assertRejected("admission_sample_reads: must be 1..100, got 0", c -> c.admissionSampleReads(0));
        assertRejected("admission_sample_reads: must be 1..100, got 101", c -> c.admissionSampleReads(101));
    }

    @Test
    void devicesMustBeThereOnceEach() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CacheConfig.builder().build());
        assertTrue(e.getMessage().contains("devices: at least one"), e.getMessage());
        assertRejected("devices[1].path: " + DEVICE + " is listed twice", c -> c.device(DeviceSpec.of(DEVICE)));
        assertRejected("is listed twice", c -> c.device(DeviceSpec.of(Path.of("/var/lib/flashchunk/../flashchunk/cache.img"))));
        assertRejected("max_writes_in_flight: 64 is more than the queue depth 32", c -> c.maxWritesInFlight(64));
    }

    @Test
    void unknownEnginesAndOversizedCapacitiesAreNamed() throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> IoEngine.parse("devices[0].engine", "spdk"));
        assertTrue(e.getMessage().contains("devices[0].engine: unknown engine 'spdk'"), e.getMessage());
        Path file = Scratch.file("config", 1L << 20);
        try {
            CacheConfig config = CacheConfig.builder().device(DeviceSpec.of(file).withCapacityBytes(2L << 20)).build();
            DeviceOpenException open = assertThrows(DeviceOpenException.class, () -> FlashCache.open(config));
            assertTrue(open.getMessage().contains(file.toString()) && open.getMessage().contains("2097152"),
                    open.getMessage());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void defaultsAreValid() {
        CacheConfig config = CacheConfig.builder().device(DeviceSpec.of(DEVICE)).build();
        assertEquals(64L << 20, config.queueBytes());
        assertEquals(0, config.dramTierBytes(), "the DRAM tier is off by default");
    }
}

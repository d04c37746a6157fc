package io.flashchunk.cassandra.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.CacheConfig;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

class CacheSettingsTest {

    /** The block as an operator writes it in cassandra.yaml, parsed the way the loader parses it. */
    private static Object block(String yaml) {
        Map<?, ?> root = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
        return root.get(CacheSettings.BLOCK);
    }

    private static String error(String yaml) {
        return assertThrows(IllegalArgumentException.class, () -> CacheSettings.parse(block(yaml))).getMessage();
    }

    @Test
    void everySettingIsRead() {
        CacheConfig config = CacheSettings.parse(block("""
                flash_chunk_cache:
                  capi_library: /opt/capi/libcflsh_block.so
                  devices:
                    - path: /dev/nvme0n1
                      capacity: 64GiB
                      engine: libaio
                      queue_depth: 64
                      discard: true
                    - path: /dev/sg1
                      engine: capi
                      capi_library: /other/lib.so
                      format: force
                  queue_bytes: 128MiB
                  max_writes_in_flight: 4
                  read_timeout_ms: 150
                  read_in_caller_thread: true
                  dram_tier_bytes: 256MiB
                  overflow_read: false
                  checkpoint_interval_ms: 5m
                  checkpoint_change_percent: 2.5
                  strict: true
                  device_timeout_ms: 10s
                  slow_read_ms: 5
                  slow_device_retry_ms: 2m
                  cache_engine: compact
                  segment_size_mib: 32
                  expected_chunk_bytes: 64KiB
                  reinsert_percent: 2.5
                  admission_sketch_counters: 4
                  admission_doorkeeper_bits: 16
                  admission_sample_reads: 40
                """));
        assertEquals(List.of(
                new DeviceSpec(Path.of("/dev/nvme0n1"), 64L << 30, IoEngine.LIBAIO, 64, "/opt/capi/libcflsh_block.so", false, false, true),
                new DeviceSpec(Path.of("/dev/sg1"), 0, IoEngine.CAPI, 32, "/other/lib.so", false, true, false)), config.devices());
        assertEquals(128L << 20, config.queueBytes());
        assertEquals(4, config.maxWritesInFlight());
        assertEquals(10_000, config.deviceTimeoutMillis());
        assertEquals(5, config.slowReadMillis());
        assertEquals(120_000, config.slowDeviceRetryMillis());
        assertEquals(150, config.readTimeoutMillis());
        assertTrue(config.readInCallerThread());
        assertEquals(256L << 20, config.dramTierBytes());
        assertFalse(config.overflowRead());
        assertEquals(300_000, config.checkpointIntervalMillis());
        assertEquals(2.5, config.checkpointChangePercent());
        assertTrue(config.strict());
        assertEquals(32 << 20, config.segmentBytes());
        assertEquals(64 << 10, config.expectedChunkBytes());
        assertEquals(2.5, config.reinsertPercent());
        assertEquals(4, config.admissionSketchCounters());
        assertEquals(16, config.admissionDoorkeeperBits());
        assertEquals(40, config.admissionSampleReads());
    }

    /**
     * A yaml written for the version with the per-chunk engine still starts the node: each of that
     * engine's settings, and {@code cache_engine: classic}, is one warning naming it, and changes nothing.
     */
    @Test
    void thePerChunkEnginesSettingsAreIgnoredWithAWarningEach() {
        List<String> warnings = new ArrayList<>();
        CacheConfig config = CacheSettings.parse(block("""
                flash_chunk_cache:
                  devices:
                    - path: /var/lib/flash.img
                  cache_engine: classic
                  allocation_wait_ms: 2s
                  space_reserve_percent: 12.5
                  read_ahead: true
                  min_checkpoint_interval_ms: 30000
                  maintenance_interval_ms: 1s
                  rebalance_factor: 2
                  migration_batch: 16
                """), warnings::add);
        assertEquals(CacheConfig.builder().device(DeviceSpec.of(Path.of("/var/lib/flash.img"))).build(), config);
        assertEquals(8, warnings.size(), String.join("\n", warnings));
        assertTrue(warnings.get(0).startsWith("flash_chunk_cache.cache_engine: 'classic' (the per-chunk engine) was removed"),
                warnings.get(0));
        assertEquals("flash_chunk_cache.allocation_wait_ms: no longer used (it tuned the per-chunk engine, which was "
                + "removed); ignored", warnings.get(1));
        assertTrue(warnings.stream().skip(1).allMatch(w -> w.endsWith("; ignored")), String.join("\n", warnings));
        List<String> none = new ArrayList<>();
        CacheSettings.parse(block("flash_chunk_cache:\n  devices:\n    - path: /x\n  cache_engine: compact\n"), none::add);
        assertEquals(List.of(), none, "the engine named: nothing to warn of");
    }

    @Test
    void defaultsNeedOnlyADevicePath() {
        CacheConfig config = CacheSettings.parse(block("""
                flash_chunk_cache:
                  devices:
                    - path: /var/lib/flash.img
                """));
        CacheConfig defaults = CacheConfig.builder().device(DeviceSpec.of(Path.of("/var/lib/flash.img"))).build();
        assertEquals(defaults, config);
        assertFalse(config.strict());
        assertEquals(CacheConfig.SKETCH_COUNTERS_AUTO, config.admissionSketchCounters());
        assertEquals(config, CacheSettings.parse(block("""
                flash_chunk_cache:
                  devices:
                    - path: /var/lib/flash.img
                  admission_sketch_counters: auto
                """)));
    }

    @Test
    void badSettingsAreNamedWithTheirFullKey() {
        assertEquals("flash_chunk_cache: must be a block of settings (key: value lines), got string 'yes please'",
                error("flash_chunk_cache: yes please"));
        assertTrue(error("flash_chunk_cache:\n  queue_bytes: 1MiB\n").startsWith(
                "flash_chunk_cache.devices: a list of at least one device"));
        assertEquals("flash_chunk_cache.devices[0].path: is required (a block device or a file)",
                error("flash_chunk_cache:\n  devices:\n    - capacity: 1GiB\n"));
        assertTrue(error("flash_chunk_cache:\n  devices:\n    - path: /dev/nvme0n1\n    - path: target/flash.img\n")
                .startsWith("flash_chunk_cache.devices[1].path: 'target/flash.img' is relative; write an absolute path"));
        assertTrue(error("flash_chunk_cache:\n  devices:\n    - path: /x\n      engine: spdk\n")
                .startsWith("flash_chunk_cache.devices[0].engine: unknown engine 'spdk'; expected one of auto, libaio"));
        assertTrue(error("flash_chunk_cache:\n  devices:\n    - path: /x\n      capacity: 12XB\n")
                .startsWith("flash_chunk_cache.devices[0].capacity: '12XB' is not a size"));
        assertTrue(error("flash_chunk_cache:\n  devices:\n    - path: /x\n      capcity: 1GiB\n")
                .startsWith("flash_chunk_cache.devices[0]: unknown setting [capcity]"));
        assertTrue(error("flash_chunk_cache:\n  devices:\n    - path: /x\n  queue_byte: 1\n  strct: true\n")
                .startsWith("flash_chunk_cache: unknown settings [queue_byte, strct]"));
        assertEquals("flash_chunk_cache.queue_bytes: must be positive, got 0",
                error("flash_chunk_cache:\n  devices:\n    - path: /x\n  queue_bytes: 0\n"));
        assertEquals("flash_chunk_cache.read_timeout_ms: '1 week' is not a duration; write milliseconds or a number with"
                + " ms, s, m or h (e.g. 300s)", error("flash_chunk_cache:\n  devices:\n    - path: /x\n  read_timeout_ms: 1 week\n"));
        assertEquals("flash_chunk_cache.strict: 'maybe' is not true or false",
                error("flash_chunk_cache:\n  devices:\n    - path: /x\n  strict: maybe\n"));
        assertTrue(error("flash_chunk_cache:\n  devices:\n    - path: /x\n    - path: /x\n")
                .startsWith("flash_chunk_cache.devices[1].path: /x is listed twice"));
        assertEquals("flash_chunk_cache.devices[0].discard: 'yes please' is not true or false",
                error("flash_chunk_cache:\n  devices:\n    - path: /x\n      discard: yes please\n"));
        assertTrue(error("flash_chunk_cache:\n  devices:\n    - path: /x\n      format: always\n")
                .startsWith("flash_chunk_cache.devices[0].format: 'always' is not auto (format the device only if it is"));
        assertEquals("flash_chunk_cache.cache_engine: 'segmented' is not an engine; the only one is compact (the setting "
                + "may be left out)", error("flash_chunk_cache:\n  devices:\n    - path: /x\n  cache_engine: segmented\n"));
        assertEquals("flash_chunk_cache.segment_size_mib: must be 1 to 256, got 512",
                error("flash_chunk_cache:\n  devices:\n    - path: /x\n  segment_size_mib: 512\n"));
        assertEquals("flash_chunk_cache.admission_sketch_counters: 'lots' is not auto or a whole number from 1 to 16",
                error("flash_chunk_cache:\n  devices:\n    - path: /x\n  admission_sketch_counters: lots\n"));
        assertEquals("flash_chunk_cache.admission_sketch_counters: '0' is not auto or a whole number from 1 to 16",
                error("flash_chunk_cache:\n  devices:\n    - path: /x\n  admission_sketch_counters: 0\n"));
        assertEquals("flash_chunk_cache.admission_sample_reads: must be 1..100, got 101",
                error("flash_chunk_cache:\n  devices:\n    - path: /x\n  admission_sample_reads: 101\n"));
        assertEquals("flash_chunk_cache.admission_sketch_counters: must be auto or 1..16, got 17",
                error("flash_chunk_cache:\n  devices:\n    - path: /x\n  admission_sketch_counters: 17\n"));
        assertEquals("flash_chunk_cache.reinsert_percent: must be 0..50, got 60.0",
                error("flash_chunk_cache:\n  devices:\n    - path: /x\n  reinsert_percent: 60\n"));
        assertEquals("flash_chunk_cache.expected_chunk_bytes: must be 4 KiB to 64 KiB, got 1024",
                error("flash_chunk_cache:\n  devices:\n    - path: /x\n  expected_chunk_bytes: 1KiB\n"));
        assertTrue(error("flash_chunk_cache:\n  devices:\n    - path: /x\n      queue_depth: 0\n")
                .startsWith("flash_chunk_cache.devices[0]: queue depth for device /x must be 1..4096, got 0"));
    }

    /** The names with the unit in the value, as Cassandra's own since 4.1, take Cassandra's forms. */
    @Test
    void theSettingsTakeCassandrasNamesAndForms() {
        CacheConfig config = CacheSettings.parse(block("""
                flash_chunk_cache:
                  devices:
                    - path: /dev/nvme0n1
                  queue_size: 128MiB
                  read_timeout: 150ms
                  dram_tier_size: 1GiB
                  checkpoint_interval: 1d
                  device_timeout: 10s
                  slow_read: 5ms
                  slow_device_retry: 2m
                  segment_size: 32MiB
                  expected_chunk_size: 4KiB
                  hot_chunk_move_rate: 2MiB/s
                """));
        assertEquals(128L << 20, config.queueBytes());
        assertEquals(150, config.readTimeoutMillis());
        assertEquals(1L << 30, config.dramTierBytes());
        assertEquals(86_400_000, config.checkpointIntervalMillis());
        assertEquals(10_000, config.deviceTimeoutMillis());
        assertEquals(5, config.slowReadMillis());
        assertEquals(120_000, config.slowDeviceRetryMillis());
        assertEquals(32 << 20, config.segmentBytes());
        assertEquals(4 << 10, config.expectedChunkBytes());
        assertEquals(2L << 20, config.hotChunkMoveBytesPerSecond());

        String device = "flash_chunk_cache:\n  devices:\n    - path: /dev/nvme0n1\n";
        assertTrue(error(device + "  checkpoint_interval: 5m\n  checkpoint_interval_ms: 300000\n").startsWith(
                "flash_chunk_cache.checkpoint_interval and flash_chunk_cache.checkpoint_interval_ms (its older name) are both set"));
        assertTrue(error(device + "  queue_size: 64\n").startsWith(
                "flash_chunk_cache.queue_size: '64' is not a size as Cassandra writes them: a number and one of B, KiB, MiB, GiB"));
        assertTrue(error(device + "  queue_size: 1TiB\n").startsWith("flash_chunk_cache.queue_size: '1TiB' is not a size"));
        assertTrue(error(device + "  checkpoint_interval: 300\n").startsWith(
                "flash_chunk_cache.checkpoint_interval: '300' is not a duration as Cassandra writes them"));
        assertTrue(error(device + "  read_timeout: 500us\n").startsWith("flash_chunk_cache.read_timeout: '500us' is not a duration"));
        assertEquals("flash_chunk_cache.queue_size: must be positive, got 0", error(device + "  queue_size: 0B\n"));
        assertTrue(error(device + "  hot_chunk_move_rate: 8MiB\n").startsWith(
                "flash_chunk_cache.hot_chunk_move_rate: '8MiB' is not a rate as Cassandra writes them: a number and one of"
                        + " B/s, KiB/s, MiB/s"));
        assertEquals(0, CacheSettings.parse(block(device + "  hot_chunk_move_rate: 0B/s\n")).hotChunkMoveBytesPerSecond(),
                "0 turns the moves off");
        assertEquals(CacheConfig.DEFAULT_HOT_CHUNK_MOVE_BYTES_PER_SECOND,
                CacheSettings.parse(block(device)).hotChunkMoveBytesPerSecond(), "8MiB/s when not set");
        assertTrue(error(device + "  segment_size: 1536KiB\n").startsWith(
                "flash_chunk_cache.segment_size: must be a whole number of MiB from 1MiB to 256MiB"));

    }

    @Test
    void theWarmUpBeforeClientsIsADurationOfAtMostTenMinutesAndOffWhenNotSet() {
        String device = "flash_chunk_cache:\n  devices:\n    - path: /dev/nvme0n1\n";
        assertEquals(45_000, CacheSettings.warmUpBeforeClientsMillis((Map<?, ?>) block(device + "  warm_up_before_clients: 45s\n")));
        assertEquals(0, CacheSettings.warmUpBeforeClientsMillis((Map<?, ?>) block(device)));
        assertTrue(error(device + "  warm_up_before_clients: 30\n").startsWith(
                "flash_chunk_cache.warm_up_before_clients: '30' is not a duration as Cassandra writes them"));
        assertEquals("flash_chunk_cache.warm_up_before_clients: must be 0s to 600s, got 2h",
                error(device + "  warm_up_before_clients: 2h\n"));
    }

    @Test
    void sizesAndDurations() {
        assertEquals(4096, CacheSettings.size("s", 4096));
        assertEquals(4096, CacheSettings.size("s", "4KiB"));
        assertEquals(3L << 40, CacheSettings.size("s", "3 TiB"));
        assertThrows(IllegalArgumentException.class, () -> CacheSettings.size("s", "99999999999TiB"));
        assertThrows(IllegalArgumentException.class, () -> CacheSettings.size("s", "-1"));
        assertThrows(IllegalArgumentException.class, () -> CacheSettings.size("s", 1.5));
        assertEquals(7_200_000, CacheSettings.millis("s", "2h"));
        assertEquals(15, CacheSettings.millis("s", "15ms"));
        assertThrows(IllegalArgumentException.class, () -> CacheSettings.millis("s", "3d"));
    }

    @Test
    void strictIsReadLeniently() {
        assertTrue(CacheSettings.isStrict(block("flash_chunk_cache:\n  strict: true\n  devices: nonsense\n")));
        assertFalse(CacheSettings.isStrict(block("flash_chunk_cache: [strict]")));
        assertFalse(CacheSettings.isStrict(null));
    }
}

package io.flashchunk.cassandra.config;

import io.flashchunk.cache.CacheConfig;
import io.flashchunk.cache.upgrade.PerChunkEngine;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.cassandra.config.DataRateSpec;
import org.apache.cassandra.config.DataStorageSpec;
import org.apache.cassandra.config.DurationSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the {@code flash_chunk_cache} block of cassandra.yaml (as SnakeYAML parsed it) into a
 * {@link CacheConfig}. Every error names the setting as the operator wrote it. Sizes are bytes or a
 * number with a unit as Cassandra writes them ({@code 64MiB}); times are milliseconds or a number
 * with a unit ({@code 300s}, {@code 5m}).
 *
 * <p>Free of Cassandra classes on purpose: the loader hands it plain maps, and tests do too.
 */
public final class CacheSettings {
    /** The cassandra.yaml key of our block. */
    public static final String BLOCK = "flash_chunk_cache";

    private static final Set<String> KEYS = Set.of("devices", "capi_library", "queue_size", "max_writes_in_flight",
            "read_timeout", "read_in_caller_thread", "dram_tier_size", "overflow_read", "checkpoint_interval",
            "checkpoint_change_percent", "strict", "device_timeout", "slow_read", "slow_device_retry",
            "segment_size", "expected_chunk_size", "reinsert_percent", "admission_sketch_counters",
            "admission_doorkeeper_bits", "admission_sample_reads", "hot_chunk_move_rate", "warm_up_before_clients",
            "chunks_on_flash", "chunks_on_flash_by_table");
    /** The longest {@code warm_up_before_clients}: a typo must not keep a node from its clients for hours. */
    public static final long MAX_WARM_UP_MILLIS = 600_000;
    /**
     * Each setting named as Cassandra names its own since 4.1 (the unit in the value: {@code 300s},
     * {@code 64MiB}), and the name it had before, with the unit in the key, which is still read with
     * everything that name took (bare numbers, {@code TiB}, spaces): no node's yaml breaks.
     */
    private static final Map<String, String> OLDER_NAMES = Map.of(
            "queue_size", "queue_bytes",
            "read_timeout", "read_timeout_ms",
            "dram_tier_size", "dram_tier_bytes",
            "checkpoint_interval", "checkpoint_interval_ms",
            "device_timeout", "device_timeout_ms",
            "slow_read", "slow_read_ms",
            "slow_device_retry", "slow_device_retry_ms",
            "segment_size", "segment_size_mib",
            "expected_chunk_size", "expected_chunk_bytes");
    private static final Set<String> DEVICE_KEYS = Set.of("path", "capacity", "engine", "queue_depth", "capi_library",
            "format", "discard");
    private static final Logger LOG = LoggerFactory.getLogger(CacheSettings.class);
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KiB|MiB|GiB|TiB)?");
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)?");
    private static final Map<String, Integer> SIZE_SHIFTS = Map.of("B", 0, "KiB", 10, "MiB", 20, "GiB", 30, "TiB", 40);
    private static final Map<String, Long> DURATION_MILLIS =
            Map.of("ms", 1L, "s", 1_000L, "m", 60_000L, "h", 3_600_000L);

    private CacheSettings() {
    }

    /**
     * Whether {@code block} asks for strict mode, read leniently: a block too malformed to parse
     * cannot ask for anything, so it counts as not strict.
     */
    public static boolean isStrict(Object block) {
        return block instanceof Map && Boolean.TRUE.equals(((Map<?, ?>) block).get("strict"));
    }

    /** Parses and validates the block, logging a warning for each retired setting it holds. */
    public static CacheConfig parse(Object block) {
        return parse(block, warning -> LOG.warn("{}", warning));
    }

    /**
     * Parses and validates the block; throws {@link IllegalArgumentException} naming the bad setting.
     * A setting that was valid in an earlier version and is no longer used is handed to {@code warn}.
     */
    public static CacheConfig parse(Object block, Consumer<String> warn) {
        if (!(block instanceof Map)) {
            throw new IllegalArgumentException(BLOCK + ": must be a block of settings (key: value lines), got "
                    + describe(block));
        }
        Map<?, ?> map = (Map<?, ?>) block;
        Set<String> accepted = new HashSet<>(KEYS);
        accepted.addAll(OLDER_NAMES.values());
        // An upgraded node may carry the removed engine's settings: accepted, each with a warning.
        accepted.addAll(PerChunkEngine.RETIRED_SETTINGS);
        accepted.add(PerChunkEngine.ENGINE_SETTING);
        rejectUnknown(BLOCK, map, accepted);
        if (map.containsKey(PerChunkEngine.ENGINE_SETTING)) {
            String at = BLOCK + "." + PerChunkEngine.ENGINE_SETTING;
            PerChunkEngine.checkEngineSetting(at, string(at, map.get(PerChunkEngine.ENGINE_SETTING)), warn);
        }
        PerChunkEngine.RETIRED_SETTINGS.stream().filter(map::containsKey).sorted()
                .forEach(retired -> warn.accept(PerChunkEngine.retiredSettingWarning(BLOCK + "." + retired)));
        CacheConfig.Builder builder = CacheConfig.builder();
        String defaultLibrary = map.containsKey("capi_library")
                ? string(BLOCK + ".capi_library", map.get("capi_library")) : DeviceSpec.DEFAULT_CAPI_LIBRARY;
        Object devices = map.get("devices");
        List<?> list = devices instanceof List ? (List<?>) devices : List.of();
        if (list.isEmpty()) {
            throw new IllegalArgumentException(BLOCK + ".devices: a list of at least one device (- path: ..., capacity: ...)"
                    + " is required, got " + describe(devices));
        }
        for (int i = 0; i < list.size(); i++) {
            builder.device(device(BLOCK + ".devices[" + i + "]", list.get(i), defaultLibrary));
        }
        String at = BLOCK + ".";
        OLDER_NAMES.forEach((name, older) -> {
            if (map.containsKey(name) && map.containsKey(older)) {
                throw new IllegalArgumentException(at + name + " and " + at + older + " (its older name) are both set; "
                        + "keep " + name);
            }
        });
        if (map.containsKey("queue_size")) {
            builder.queueBytes(cassandraSize(at + "queue_size", map.get("queue_size")));
        }
        if (map.containsKey("queue_bytes")) {
            builder.queueBytes(size(at + "queue_bytes", map.get("queue_bytes")));
        }
        if (map.containsKey("max_writes_in_flight")) {
            builder.maxWritesInFlight(intValue(at + "max_writes_in_flight", map.get("max_writes_in_flight")));
        }
        if (map.containsKey("read_timeout")) {
            builder.readTimeoutMillis(cassandraMillis(at + "read_timeout", map.get("read_timeout")));
        }
        if (map.containsKey("read_timeout_ms")) {
            builder.readTimeoutMillis(millis(at + "read_timeout_ms", map.get("read_timeout_ms")));
        }
        if (map.containsKey("read_in_caller_thread")) {
            builder.readInCallerThread(bool(at + "read_in_caller_thread", map.get("read_in_caller_thread")));
        }
        if (map.containsKey("dram_tier_size")) {
            builder.dramTierBytes(cassandraSize(at + "dram_tier_size", map.get("dram_tier_size")));
        }
        if (map.containsKey("dram_tier_bytes")) {
            builder.dramTierBytes(size(at + "dram_tier_bytes", map.get("dram_tier_bytes")));
        }
        if (map.containsKey("overflow_read")) {
            builder.overflowRead(bool(at + "overflow_read", map.get("overflow_read")));
        }
        if (map.containsKey("checkpoint_interval")) {
            builder.checkpointIntervalMillis(cassandraMillis(at + "checkpoint_interval", map.get("checkpoint_interval")));
        }
        if (map.containsKey("checkpoint_interval_ms")) {
            builder.checkpointIntervalMillis(millis(at + "checkpoint_interval_ms", map.get("checkpoint_interval_ms")));
        }
        if (map.containsKey("checkpoint_change_percent")) {
            builder.checkpointChangePercent(number(at + "checkpoint_change_percent", map.get("checkpoint_change_percent")));
        }
        if (map.containsKey("strict")) {
            builder.strict(bool(at + "strict", map.get("strict")));
        }
        if (map.containsKey("device_timeout")) {
            builder.deviceTimeoutMillis(cassandraMillis(at + "device_timeout", map.get("device_timeout")));
        }
        if (map.containsKey("device_timeout_ms")) {
            builder.deviceTimeoutMillis(millis(at + "device_timeout_ms", map.get("device_timeout_ms")));
        }
        if (map.containsKey("slow_read")) {
            builder.slowReadMillis(cassandraMillis(at + "slow_read", map.get("slow_read")));
        }
        if (map.containsKey("slow_read_ms")) {
            builder.slowReadMillis(millis(at + "slow_read_ms", map.get("slow_read_ms")));
        }
        if (map.containsKey("slow_device_retry")) {
            builder.slowDeviceRetryMillis(cassandraMillis(at + "slow_device_retry", map.get("slow_device_retry")));
        }
        if (map.containsKey("slow_device_retry_ms")) {
            builder.slowDeviceRetryMillis(millis(at + "slow_device_retry_ms", map.get("slow_device_retry_ms")));
        }
        if (map.containsKey("segment_size")) {
            long bytes = cassandraSize(at + "segment_size", map.get("segment_size"));
            if (bytes % (1 << 20) != 0 || bytes < CacheConfig.MIN_SEGMENT_BYTES || bytes > CacheConfig.MAX_SEGMENT_BYTES) {
                throw new IllegalArgumentException(at + "segment_size: must be a whole number of MiB from "
                        + (CacheConfig.MIN_SEGMENT_BYTES >> 20) + "MiB to " + (CacheConfig.MAX_SEGMENT_BYTES >> 20)
                        + "MiB, got " + map.get("segment_size"));
            }
            builder.segmentBytes((int) bytes);
        }
        if (map.containsKey("segment_size_mib")) {
            int mib = intValue(at + "segment_size_mib", map.get("segment_size_mib"));
            if (mib < CacheConfig.MIN_SEGMENT_BYTES >> 20 || mib > CacheConfig.MAX_SEGMENT_BYTES >> 20) {
                throw new IllegalArgumentException(at + "segment_size_mib: must be " + (CacheConfig.MIN_SEGMENT_BYTES >> 20)
                        + " to " + (CacheConfig.MAX_SEGMENT_BYTES >> 20) + ", got " + mib);
            }
            builder.segmentBytes(mib << 20);
        }
        for (String name : List.of("expected_chunk_size", "expected_chunk_bytes")) {
            if (map.containsKey(name)) {
                long bytes = name.equals("expected_chunk_size")
                        ? cassandraSize(at + name, map.get(name)) : size(at + name, map.get(name));
                if (bytes > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException(at + name + ": must be 4 KiB to 64 KiB, got " + map.get(name));
                }
                builder.expectedChunkBytes((int) bytes);
            }
        }
        if (map.containsKey("reinsert_percent")) {
            builder.reinsertPercent(number(at + "reinsert_percent", map.get("reinsert_percent")));
        }
        if (map.containsKey("admission_sketch_counters")) {
            Object counters = map.get("admission_sketch_counters");
            if ("auto".equals(counters)) {
                builder.admissionSketchCounters(CacheConfig.SKETCH_COUNTERS_AUTO);
            } else if (counters instanceof Integer && (Integer) counters != CacheConfig.SKETCH_COUNTERS_AUTO) {
                builder.admissionSketchCounters((Integer) counters); // 0 is auto inside, but an operator writes auto
            } else {
                throw new IllegalArgumentException(at + "admission_sketch_counters: '" + counters
                        + "' is not auto or a whole number from 1 to 16");
            }
        }
        if (map.containsKey("admission_doorkeeper_bits")) {
            builder.admissionDoorkeeperBits(intValue(at + "admission_doorkeeper_bits", map.get("admission_doorkeeper_bits")));
        }
        if (map.containsKey("admission_sample_reads")) {
            builder.admissionSampleReads(intValue(at + "admission_sample_reads", map.get("admission_sample_reads")));
        }
        if (map.containsKey("hot_chunk_move_rate")) {
            builder.hotChunkMoveBytesPerSecond(cassandraRate(at + "hot_chunk_move_rate", map.get("hot_chunk_move_rate")));
        }
        warmUpBeforeClientsMillis(map); // the adapter's alone, checked with the rest
        ChunksOnFlash.parse(map);
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            // CacheConfig names settings without the block, by their current names; operators look for the
            // full key they wrote
            String message = e.getMessage();
            for (Map.Entry<String, String> names : OLDER_NAMES.entrySet()) {
                if (message.startsWith(names.getKey() + ":") && map.containsKey(names.getValue())) {
                    message = names.getValue() + message.substring(names.getKey().length());
                }
            }
            throw new IllegalArgumentException(at + message, e);
        }
    }

    /**
     * {@code warm_up_before_clients}: how long the node reads its own tables through Cassandra's read
     * path before it starts its client transports (0, the default, for not at all). The adapter's
     * setting, not the cache core's, so it is read apart from {@link CacheConfig}.
     */
    public static long warmUpBeforeClientsMillis(Map<?, ?> block) {
        String at = BLOCK + ".warm_up_before_clients";
        if (!block.containsKey("warm_up_before_clients")) {
            return 0;
        }
        long millis = cassandraMillis(at, block.get("warm_up_before_clients"));
        if (millis < 0 || millis > MAX_WARM_UP_MILLIS) {
            throw new IllegalArgumentException(at + ": must be 0s to " + MAX_WARM_UP_MILLIS / 1000 + "s, got "
                    + block.get("warm_up_before_clients"));
        }
        return millis;
    }

    private static DeviceSpec device(String at, Object value, String defaultLibrary) {
        if (!(value instanceof Map)) {
            throw new IllegalArgumentException(at + ": must be a block with path (and capacity, engine, queue_depth), got "
                    + describe(value));
        }
        Map<?, ?> map = (Map<?, ?>) value;
        rejectUnknown(at, map, DEVICE_KEYS);
        if (map.get("path") == null) {
            throw new IllegalArgumentException(at + ".path: is required (a block device or a file)");
        }
        String path = string(at + ".path", map.get("path"));
        if (!Path.of(path).isAbsolute()) {
            // Resolved against the JVM's working directory, it would name a different file per launcher.
            throw new IllegalArgumentException(at + ".path: '" + path + "' is relative; write an absolute path"
                    + " (Cassandra runs from " + System.getProperty("user.dir") + ", which is not a stable base)");
        }
        long capacity = map.containsKey("capacity") ? size(at + ".capacity", map.get("capacity")) : 0;
        IoEngine engine = map.containsKey("engine")
                ? IoEngine.parse(at + ".engine", string(at + ".engine", map.get("engine"))) : IoEngine.AUTO;
        int queueDepth = map.containsKey("queue_depth")
                ? intValue(at + ".queue_depth", map.get("queue_depth")) : DeviceSpec.DEFAULT_QUEUE_DEPTH;
        String library = map.containsKey("capi_library") ? string(at + ".capi_library", map.get("capi_library"))
                : defaultLibrary;
        boolean forceFormat = false;
        if (map.containsKey("format")) {
            String format = string(at + ".format", map.get("format"));
            if (!format.equals("force") && !format.equals("auto")) {
                throw new IllegalArgumentException(at + ".format: '" + format + "' is not auto (format the device only "
                        + "if it is blank or holds a flash cache) or force (format it whatever it holds)");
            }
            forceFormat = format.equals("force");
        }
        boolean discard = map.containsKey("discard") && bool(at + ".discard", map.get("discard"));
        try {
            return new DeviceSpec(Path.of(path), capacity, engine, queueDepth, library, false, forceFormat, discard);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(at + ": " + e.getMessage(), e);
        }
    }

    private static void rejectUnknown(String at, Map<?, ?> map, Set<String> known) {
        Set<String> unknown = new LinkedHashSet<>();
        for (Object key : map.keySet()) {
            if (!known.contains(String.valueOf(key))) {
                unknown.add(String.valueOf(key));
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(at + ": unknown setting" + (unknown.size() > 1 ? "s " : " ") + unknown
                    + "; known: " + known.stream().sorted().collect(Collectors.toUnmodifiableList()));
        }
    }

    static long size(String setting, Object value) {
        if (value instanceof Integer || value instanceof Long) {
            return ((Number) value).longValue();
        }
        Matcher m = value instanceof String ? SIZE.matcher(((String) value).trim()) : null;
        if (m == null || !m.matches()) {
            throw new IllegalArgumentException(setting + ": '" + value + "' is not a size; write bytes or a number with"
                    + " B, KiB, MiB, GiB or TiB (e.g. 64GiB)");
        }
        int shift = SIZE_SHIFTS.getOrDefault(m.group(2) == null ? "B" : m.group(2), 0);
        try {
            long number = Long.parseLong(m.group(1));
            if (number > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return number << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(setting + ": '" + value + "' is too large", e);
        }
    }

    /** A size as Cassandra writes its own (DataStorageSpec): a number and B, KiB, MiB or GiB. */
    static long cassandraSize(String setting, Object value) {
        try {
            return new DataStorageSpec.LongBytesBound(String.valueOf(value)).toBytes();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(setting + ": '" + value + "' is not a size as Cassandra writes them: a number"
                    + " and one of B, KiB, MiB, GiB (e.g. 64MiB, 0B) (" + e.getMessage() + ")", e);
        }
    }

    /** A rate as Cassandra writes its own (DataRateSpec): a number and B/s, KiB/s or MiB/s; in bytes a second. */
    static long cassandraRate(String setting, Object value) {
        try {
            return (long) new DataRateSpec.LongBytesPerSecondBound(String.valueOf(value)).toBytesPerSecond();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(setting + ": '" + value + "' is not a rate as Cassandra writes them: a number"
                    + " and one of B/s, KiB/s, MiB/s (e.g. 8MiB/s, 0B/s) (" + e.getMessage() + ")", e);
        }
    }

    /** A duration as Cassandra writes its own (DurationSpec): a number and ms, s, m, h or d. */
    static long cassandraMillis(String setting, Object value) {
        try {
            return new DurationSpec.LongMillisecondsBound(String.valueOf(value)).toMilliseconds();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(setting + ": '" + value + "' is not a duration as Cassandra writes them: a"
                    + " number and one of ms, s, m, h, d (e.g. 300s) (" + e.getMessage() + ")", e);
        }
    }

    static long millis(String setting, Object value) {
        if (value instanceof Integer || value instanceof Long) {
            return ((Number) value).longValue();
        }
        Matcher m = value instanceof String ? DURATION.matcher(((String) value).trim()) : null;
        if (m == null || !m.matches()) {
            throw new IllegalArgumentException(setting + ": '" + value + "' is not a duration; write milliseconds or a"
                    + " number with ms, s, m or h (e.g. 300s)");
        }
        long unit = DURATION_MILLIS.getOrDefault(m.group(2) == null ? "ms" : m.group(2), 1L);
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException(setting + ": '" + value + "' is too large", e);
        }
    }

    private static int intValue(String setting, Object value) {
        if (value instanceof Integer) {
            return (Integer) value;
        }
        throw new IllegalArgumentException(setting + ": '" + value + "' is not a whole number");
    }

    private static double number(String setting, Object value) {
        if (value instanceof Number) {
            return ((Number) value).doubleValue();
        }
        throw new IllegalArgumentException(setting + ": '" + value + "' is not a number");
    }

    private static boolean bool(String setting, Object value) {
        if (value instanceof Boolean) {
            return (Boolean) value;
        }
        throw new IllegalArgumentException(setting + ": '" + value + "' is not true or false");
    }

    private static String string(String setting, Object value) {
        if (value instanceof String && !((String) value).isBlank()) {
            return ((String) value).trim();
        }
        throw new IllegalArgumentException(setting + ": must be a non-empty string, got " + describe(value));
    }

    private static String describe(Object value) {
        if (value == null) {
            return "nothing";
        }
        String kind = value instanceof Map ? "a block" : value instanceof List ? "a list"
                : value.getClass().getSimpleName().toLowerCase(Locale.ROOT);
        return kind + " '" + value + "'";
    }
}

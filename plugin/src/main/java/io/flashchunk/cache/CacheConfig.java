package io.flashchunk.cache;

import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.device.DeviceSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Settings of one cache. {@link #validate()} rejects every bad value with a message naming the
 * setting as an operator writes it in cassandra.yaml.
 */
public final class CacheConfig {
    /**
     * Twice Caffeine's sample: with the 2-byte sketch it brings zipfian at 10% flash from 1.46 points below
     * the per-chunk policy to 1.02, and a trace whose popular chunks move stays ahead of it or within 0.15
     * (docs/results/cache-simulator-runs.md); 10 follows changing popularity faster.
     */
    public static final int DEFAULT_ADMISSION_SAMPLE_READS = 20;

    /** {@code admission_sketch_counters: auto}: the engine's choice, 4 bytes a chunk (engine.MemoryBudget). */
    public static final int SKETCH_COUNTERS_AUTO = 0;

    /** {@code hot_chunk_move_rate}'s default: 8 MiB a second, 512 chunks of 16 KiB. */
    public static final long DEFAULT_HOT_CHUNK_MOVE_BYTES_PER_SECOND = 8L << 20;

    /** Segments: at least this size (a chunk's record must fit), at most {@link #MAX_SEGMENT_BYTES}. */
    public static final int MIN_SEGMENT_BYTES = 1 << 20;
    public static final int MAX_SEGMENT_BYTES = 256 << 20;

    private final List<DeviceSpec> devices;
    private final long queueBytes;
    private final int maxWritesInFlight;
    private final long readTimeoutMillis;
    private final boolean readInCallerThread;
    private final long dramTierBytes;
    private final boolean overflowRead;
    private final long checkpointIntervalMillis;
    private final double checkpointChangePercent;
    private final boolean strict;
    private final long deviceTimeoutMillis;
    private final long slowReadMillis;
    private final long slowDeviceRetryMillis;
    private final int segmentBytes;
    private final int expectedChunkBytes;
    private final double reinsertPercent;
    private final int admissionSketchCounters;
    private final int admissionDoorkeeperBits;
    private final int admissionSampleReads;
    private final long hotChunkMoveBytesPerSecond;

    /**
     * @param devices                one address space per device
     * @param queueBytes             most bytes of chunks waiting to be written; more are dropped
     * @param maxWritesInFlight      per device: the share of its queue depth cache fills may take
     * @param readTimeoutMillis      a flash read slower than this is a miss (queued reads); a caller-thread
     *     read outstanding this long marks the device hung
     * @param readInCallerThread     a hit reads flash in the reader's own thread, one blocking read with
     *     no thread hand-off, instead of through the device's queue and
     *     completion thread; one outstanding past the read timeout marks the
     *     device hung, and no new one starts
     * @param dramTierBytes          DRAM tier for the hottest chunks; 0 turns it off
     * @param overflowRead           a flash hit whose file's next chunk lies beside it on flash reads both
     *     with one I/O, and serves the next one when its reader asks (the paper's
     *     overflow read: a partition spanning two chunks costs one flash read)
     * @param checkpointIntervalMillis the longest time between checkpoints while the index changes (one is
     *     also written at clean close); where the last checkpoint was larger than
     *     a segment, also until the chunk bytes appended since are 50 times its
     *     bytes (checkpoints by time within 2% of what flash is written)
     * @param checkpointChangePercent a checkpoint is written each time segments making up this share of
     *     the flash have been written since the last one (a crash loses at most
     *     about this share of the cache); 0: once the whole flash has been
     *     written, or a checkpoint by time is due
     * @param strict                 refuse to start, instead of formatting, when the devices hold a cache
     *     this configuration cannot recover
     * @param deviceTimeoutMillis    the longest the cache waits on a device for anything but a hit's read
     *     (segment and checkpoint writes, flushes, recovery reads, close): a
     *     device that does not answer in time counts as failed for that operation
     * @param slowReadMillis         a device whose median read is above this, and above the mean read of
     *     a miss, is slow: the slow-device breaker stops reading it
     * @param slowDeviceRetryMillis  how long a slow, failing or hung device stays out of use before the
     *     cache tries it again
     * @param segmentBytes           flash is written and reclaimed in segments of this size
     * @param expectedChunkBytes     the chunk size the index is sized for (one slot per such chunk
     *     the flash holds); smaller chunks fill the index before the flash
     * @param reinsertPercent        share of a reclaimed segment its chunks read since they were
     *     written may fill again
     * @param admissionSketchCounters counters per cached chunk in the admission sketch's rows, or
     *     {@link #SKETCH_COUNTERS_AUTO}: the engine's choice (2, 4 bytes a chunk)
     * @param admissionDoorkeeperBits bits per cached chunk of the doorkeeper in front of the sketch (0: none)
     * @param admissionSampleReads   reads per cached chunk the sketch counts before it halves every count:
     *     how far back "read lately" reaches
     * @param hotChunkMoveBytesPerSecond with more than one device, chunk bytes a second hits read from a
     *     device whose reads take 1.5 times the time of the least loaded one's may
     *     write again where the reads take least (the paper's move of hot chunks); 0: none
     */
    public CacheConfig(List<DeviceSpec> devices, long queueBytes, int maxWritesInFlight, long readTimeoutMillis,
                       boolean readInCallerThread, long dramTierBytes, boolean overflowRead,
                       long checkpointIntervalMillis, double checkpointChangePercent, boolean strict,
                       long deviceTimeoutMillis, long slowReadMillis, long slowDeviceRetryMillis, int segmentBytes,
                       int expectedChunkBytes, double reinsertPercent, int admissionSketchCounters,
                       int admissionDoorkeeperBits, int admissionSampleReads, long hotChunkMoveBytesPerSecond) {
        devices = devices == null ? null : List.copyOf(devices);
        this.devices = devices;
        this.queueBytes = queueBytes;
        this.maxWritesInFlight = maxWritesInFlight;
        this.readTimeoutMillis = readTimeoutMillis;
        this.readInCallerThread = readInCallerThread;
        this.dramTierBytes = dramTierBytes;
        this.overflowRead = overflowRead;
        this.checkpointIntervalMillis = checkpointIntervalMillis;
        this.checkpointChangePercent = checkpointChangePercent;
        this.strict = strict;
        this.deviceTimeoutMillis = deviceTimeoutMillis;
        this.slowReadMillis = slowReadMillis;
        this.slowDeviceRetryMillis = slowDeviceRetryMillis;
        this.segmentBytes = segmentBytes;
        this.expectedChunkBytes = expectedChunkBytes;
        this.reinsertPercent = reinsertPercent;
        this.admissionSketchCounters = admissionSketchCounters;
        this.admissionDoorkeeperBits = admissionDoorkeeperBits;
        this.admissionSampleReads = admissionSampleReads;
        this.hotChunkMoveBytesPerSecond = hotChunkMoveBytesPerSecond;
    }

    public long hotChunkMoveBytesPerSecond() {
        return hotChunkMoveBytesPerSecond;
    }

    public List<DeviceSpec> devices() {
        return devices;
    }

    public long queueBytes() {
        return queueBytes;
    }

    public int maxWritesInFlight() {
        return maxWritesInFlight;
    }

    public long readTimeoutMillis() {
        return readTimeoutMillis;
    }

    public boolean readInCallerThread() {
        return readInCallerThread;
    }

    public long dramTierBytes() {
        return dramTierBytes;
    }

    public boolean overflowRead() {
        return overflowRead;
    }

    public long checkpointIntervalMillis() {
        return checkpointIntervalMillis;
    }

    public double checkpointChangePercent() {
        return checkpointChangePercent;
    }

    public boolean strict() {
        return strict;
    }

    public long deviceTimeoutMillis() {
        return deviceTimeoutMillis;
    }

    public long slowReadMillis() {
        return slowReadMillis;
    }

    public long slowDeviceRetryMillis() {
        return slowDeviceRetryMillis;
    }

    public int segmentBytes() {
        return segmentBytes;
    }

    public int expectedChunkBytes() {
        return expectedChunkBytes;
    }

    public double reinsertPercent() {
        return reinsertPercent;
    }

    public int admissionSketchCounters() {
        return admissionSketchCounters;
    }

    public int admissionDoorkeeperBits() {
        return admissionDoorkeeperBits;
    }

    public int admissionSampleReads() {
        return admissionSampleReads;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Fails with the first bad setting, named as in the configuration file. */
    CacheConfig validate() {
        if (devices == null || devices.isEmpty()) {
            throw new IllegalArgumentException("devices: at least one flash device must be configured");
        }
        Set<Path> seen = new HashSet<>();
        for (int i = 0; i < devices.size(); i++) {
            DeviceSpec device = Objects.requireNonNull(devices.get(i), "devices[" + i + "]");
            Path normal = device.path().toAbsolutePath().normalize();
            if (!seen.add(normal)) {
                throw new IllegalArgumentException("devices[" + i + "].path: " + device.path()
                        + " is listed twice; each device may hold one address space");
            }
            if (maxWritesInFlight > device.queueDepth()) {
                throw new IllegalArgumentException("max_writes_in_flight: " + maxWritesInFlight
                        + " is more than the queue depth " + device.queueDepth() + " of " + device.path());
            }
        }
        if (devices.size() > RecordAddress.MAX_SPACES) {
            throw new IllegalArgumentException("devices: at most " + RecordAddress.MAX_SPACES
                    + " devices, got " + devices.size());
        }
        positive("queue_size", queueBytes);
        positive("max_writes_in_flight", maxWritesInFlight);
        positive("read_timeout", readTimeoutMillis);
        notNegative("dram_tier_size", dramTierBytes);
        positive("checkpoint_interval", checkpointIntervalMillis);
        if (!(checkpointChangePercent >= 0 && checkpointChangePercent <= 100)) {
            throw new IllegalArgumentException("checkpoint_change_percent: must be 0..100, got " + checkpointChangePercent);
        }
        positive("device_timeout", deviceTimeoutMillis);
        positive("slow_read", slowReadMillis);
        positive("slow_device_retry", slowDeviceRetryMillis);
        if (segmentBytes < MIN_SEGMENT_BYTES || segmentBytes > MAX_SEGMENT_BYTES || segmentBytes % (1 << 20) != 0) {
            throw new IllegalArgumentException("segment_size: must be a whole number of MiB from "
                    + (MIN_SEGMENT_BYTES >> 20) + "MiB to " + (MAX_SEGMENT_BYTES >> 20) + "MiB, got " + segmentBytes + " bytes");
        }
        if (expectedChunkBytes < 4096 || expectedChunkBytes > RecordFormat.MAX_CHUNK_BYTES) {
            throw new IllegalArgumentException("expected_chunk_size: must be 4 KiB to " + (RecordFormat.MAX_CHUNK_BYTES >> 10)
                    + " KiB, got " + expectedChunkBytes);
        }
        if (!(reinsertPercent >= 0 && reinsertPercent <= 50)) {
            throw new IllegalArgumentException("reinsert_percent: must be 0..50, got " + reinsertPercent);
        }
        if (admissionSketchCounters < SKETCH_COUNTERS_AUTO || admissionSketchCounters > 16) {
            throw new IllegalArgumentException("admission_sketch_counters: must be auto or 1..16, got "
                    + admissionSketchCounters);
        }
        if (admissionDoorkeeperBits < 0 || admissionDoorkeeperBits > 64) {
            throw new IllegalArgumentException("admission_doorkeeper_bits: must be 0..64, got " + admissionDoorkeeperBits);
        }
        // Up to 100: measured to 80 (docs/results/cache-simulator-runs.md); beyond, most counters sit at
        // 15 and the doorkeeper, cleared only at a halving, fills.
        if (admissionSampleReads < 1 || admissionSampleReads > 100) {
            throw new IllegalArgumentException("admission_sample_reads: must be 1..100, got " + admissionSampleReads);
        }
        notNegative("hot_chunk_move_rate", hotChunkMoveBytesPerSecond);
        return this;
    }

    private static void positive(String setting, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(setting + ": must be positive, got " + value);
        }
    }

    private static void notNegative(String setting, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(setting + ": must not be negative, got " + value);
        }
    }

    /** Defaults for everything but the devices. */
    public static final class Builder {
        private final List<DeviceSpec> devices = new ArrayList<>();
        private long queueBytes = 64L << 20;
        private int maxWritesInFlight = 8;
        private long readTimeoutMillis = 200;
        private long deviceTimeoutMillis = 30_000;
        private boolean readInCallerThread;
        private long dramTierBytes;
        private boolean overflowRead = true;
        private long checkpointIntervalMillis = 300_000;
        private double checkpointChangePercent = 10;
        private boolean strict;
        private long slowReadMillis = 10;
        private long slowDeviceRetryMillis = 60_000;
        private int segmentBytes = 16 << 20;
        private int expectedChunkBytes = 16 << 10;
        private double reinsertPercent = 4.5;
        private int admissionSketchCounters = SKETCH_COUNTERS_AUTO;
        private int admissionDoorkeeperBits = 8;
        private int admissionSampleReads = DEFAULT_ADMISSION_SAMPLE_READS;
        private long hotChunkMoveBytesPerSecond = DEFAULT_HOT_CHUNK_MOVE_BYTES_PER_SECOND;

        public Builder device(DeviceSpec device) {
            devices.add(device);
            return this;
        }

        public Builder queueBytes(long bytes) {
            this.queueBytes = bytes;
            return this;
        }

        public Builder maxWritesInFlight(int writes) {
            this.maxWritesInFlight = writes;
            return this;
        }

        public Builder readTimeoutMillis(long millis) {
            this.readTimeoutMillis = millis;
            return this;
        }

        public Builder readInCallerThread(boolean enabled) {
            this.readInCallerThread = enabled;
            return this;
        }

        public Builder dramTierBytes(long bytes) {
            this.dramTierBytes = bytes;
            return this;
        }

        public Builder overflowRead(boolean enabled) {
            this.overflowRead = enabled;
            return this;
        }

        public Builder checkpointIntervalMillis(long millis) {
            this.checkpointIntervalMillis = millis;
            return this;
        }

        public Builder checkpointChangePercent(double percent) {
            this.checkpointChangePercent = percent;
            return this;
        }

        public Builder strict(boolean refuseToFormat) {
            this.strict = refuseToFormat;
            return this;
        }

        public Builder deviceTimeoutMillis(long millis) {
            this.deviceTimeoutMillis = millis;
            return this;
        }

        public Builder slowReadMillis(long millis) {
            this.slowReadMillis = millis;
            return this;
        }

        public Builder slowDeviceRetryMillis(long millis) {
            this.slowDeviceRetryMillis = millis;
            return this;
        }

        public Builder segmentBytes(int bytes) {
            this.segmentBytes = bytes;
            return this;
        }

        public Builder expectedChunkBytes(int bytes) {
            this.expectedChunkBytes = bytes;
            return this;
        }

        public Builder reinsertPercent(double percent) {
            this.reinsertPercent = percent;
            return this;
        }

        public Builder admissionSketchCounters(int counters) {
            this.admissionSketchCounters = counters;
            return this;
        }

        public Builder admissionDoorkeeperBits(int bits) {
            this.admissionDoorkeeperBits = bits;
            return this;
        }

        public Builder admissionSampleReads(int reads) {
            this.admissionSampleReads = reads;
            return this;
        }

        public Builder hotChunkMoveBytesPerSecond(long bytesPerSecond) {
            this.hotChunkMoveBytesPerSecond = bytesPerSecond;
            return this;
        }

        public CacheConfig build() {
            return new CacheConfig(devices, queueBytes, maxWritesInFlight, readTimeoutMillis, readInCallerThread,
                    dramTierBytes, overflowRead, checkpointIntervalMillis, checkpointChangePercent, strict,
                    deviceTimeoutMillis, slowReadMillis, slowDeviceRetryMillis, segmentBytes, expectedChunkBytes,
                    reinsertPercent, admissionSketchCounters, admissionDoorkeeperBits, admissionSampleReads,
                    hotChunkMoveBytesPerSecond).validate();
        }
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof CacheConfig)) {
            return false;
        }
        CacheConfig other = (CacheConfig) o;
        return Objects.equals(devices, other.devices)
                && queueBytes == other.queueBytes
                && maxWritesInFlight == other.maxWritesInFlight
                && readTimeoutMillis == other.readTimeoutMillis
                && readInCallerThread == other.readInCallerThread
                && dramTierBytes == other.dramTierBytes
                && overflowRead == other.overflowRead
                && checkpointIntervalMillis == other.checkpointIntervalMillis
                && Double.compare(checkpointChangePercent, other.checkpointChangePercent) == 0
                && strict == other.strict
                && deviceTimeoutMillis == other.deviceTimeoutMillis
                && slowReadMillis == other.slowReadMillis
                && slowDeviceRetryMillis == other.slowDeviceRetryMillis
                && segmentBytes == other.segmentBytes
                && expectedChunkBytes == other.expectedChunkBytes
                && Double.compare(reinsertPercent, other.reinsertPercent) == 0
                && admissionSketchCounters == other.admissionSketchCounters
                && admissionDoorkeeperBits == other.admissionDoorkeeperBits
                && admissionSampleReads == other.admissionSampleReads
                && hotChunkMoveBytesPerSecond == other.hotChunkMoveBytesPerSecond;
    }

    @Override
    public int hashCode() {
        return Objects.hash(devices, queueBytes, maxWritesInFlight, readTimeoutMillis, readInCallerThread,
                dramTierBytes, overflowRead, checkpointIntervalMillis, checkpointChangePercent, strict,
                deviceTimeoutMillis, slowReadMillis, slowDeviceRetryMillis, segmentBytes, expectedChunkBytes,
                reinsertPercent, admissionSketchCounters, admissionDoorkeeperBits, admissionSampleReads,
                hotChunkMoveBytesPerSecond);
    }

    @Override
    public String toString() {
        return "CacheConfig[devices=" + devices + ", queueBytes=" + queueBytes
                + ", maxWritesInFlight=" + maxWritesInFlight + ", readTimeoutMillis=" + readTimeoutMillis
                + ", readInCallerThread=" + readInCallerThread + ", dramTierBytes=" + dramTierBytes
                + ", overflowRead=" + overflowRead + ", checkpointIntervalMillis=" + checkpointIntervalMillis
                + ", checkpointChangePercent=" + checkpointChangePercent + ", strict=" + strict
                + ", deviceTimeoutMillis=" + deviceTimeoutMillis + ", slowReadMillis=" + slowReadMillis
                + ", slowDeviceRetryMillis=" + slowDeviceRetryMillis + ", segmentBytes=" + segmentBytes
                + ", expectedChunkBytes=" + expectedChunkBytes + ", reinsertPercent=" + reinsertPercent
                + ", admissionSketchCounters=" + admissionSketchCounters
                + ", admissionDoorkeeperBits=" + admissionDoorkeeperBits
                + ", admissionSampleReads=" + admissionSampleReads
                + ", hotChunkMoveBytesPerSecond=" + hotChunkMoveBytesPerSecond + "]";
    }
}

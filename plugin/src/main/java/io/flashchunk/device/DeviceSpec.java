package io.flashchunk.device;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How to open one flash device.
 */
public final class DeviceSpec {
    public static final int DEFAULT_QUEUE_DEPTH = 32;
    public static final int MAX_QUEUE_DEPTH = 4096;
    public static final String DEFAULT_CAPI_LIBRARY = "libcflsh_block.so";

    private final Path path;
    private final long capacityBytes;
    private final IoEngine engine;
    private final int queueDepth;
    private final String capiLibrary;
    private final boolean readOnly;
    private final boolean forceFormat;
    private final boolean discard;

    /**
     * @param path          regular file or block device (for CAPI: the path given to {@code cblk_open})
     * @param capacityBytes bytes of the device to use, a multiple of 4096; 0 means the whole device
     * @param engine        how to move bytes
     * @param queueDepth    most requests in flight at once
     * @param capiLibrary   the capiblock library to load for {@link IoEngine#CAPI}: a path, or a bare
     *     name for the dynamic linker to find
     * @param readOnly      open for reading only (inspection tools); writes are refused
     * @param forceFormat   the operator's word ({@code format: force}) that the device is the cache's even
     *     though it holds something else: without it only a blank device or one of
     *     ours is ever formatted
     * @param discard       discard (TRIM) each segment of the cache on this device as it becomes free,
     *     and every free one at start ({@code discard: true})
     */
    public DeviceSpec(Path path, long capacityBytes, IoEngine engine, int queueDepth, String capiLibrary,
                      boolean readOnly, boolean forceFormat, boolean discard) {
        Objects.requireNonNull(path, "device path");
        Objects.requireNonNull(engine, "engine for device " + path);
        Objects.requireNonNull(capiLibrary, "CAPI library for device " + path);
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("capacity for device " + path + " must not be negative, got " + capacityBytes);
        }
        if (queueDepth < 1 || queueDepth > MAX_QUEUE_DEPTH) {
            throw new IllegalArgumentException("queue depth for device " + path + " must be 1.." + MAX_QUEUE_DEPTH
                    + ", got " + queueDepth);
        }
        this.path = path;
        this.capacityBytes = capacityBytes;
        this.engine = engine;
        this.queueDepth = queueDepth;
        this.capiLibrary = capiLibrary;
        this.readOnly = readOnly;
        this.forceFormat = forceFormat;
        this.discard = discard;
    }

    public Path path() {
        return path;
    }

    public long capacityBytes() {
        return capacityBytes;
    }

    public IoEngine engine() {
        return engine;
    }

    public int queueDepth() {
        return queueDepth;
    }

    public String capiLibrary() {
        return capiLibrary;
    }

    public boolean readOnly() {
        return readOnly;
    }

    public boolean forceFormat() {
        return forceFormat;
    }

    public boolean discard() {
        return discard;
    }

    /** The whole device, engine chosen automatically, default queue depth. */
    public static DeviceSpec of(Path path) {
        return new DeviceSpec(path, 0, IoEngine.AUTO, DEFAULT_QUEUE_DEPTH, DEFAULT_CAPI_LIBRARY, false, false, false);
    }

    public DeviceSpec withCapacityBytes(long bytes) {
        return new DeviceSpec(path, bytes, engine, queueDepth, capiLibrary, readOnly, forceFormat, discard);
    }

    public DeviceSpec withEngine(IoEngine newEngine) {
        return new DeviceSpec(path, capacityBytes, newEngine, queueDepth, capiLibrary, readOnly, forceFormat, discard);
    }

    public DeviceSpec withQueueDepth(int depth) {
        return new DeviceSpec(path, capacityBytes, engine, depth, capiLibrary, readOnly, forceFormat, discard);
    }

    public DeviceSpec withCapiLibrary(String library) {
        return new DeviceSpec(path, capacityBytes, engine, queueDepth, library, readOnly, forceFormat, discard);
    }

    public DeviceSpec withForceFormat(boolean force) {
        return new DeviceSpec(path, capacityBytes, engine, queueDepth, capiLibrary, readOnly, force, discard);
    }

    public DeviceSpec withDiscard(boolean discardFreed) {
        return new DeviceSpec(path, capacityBytes, engine, queueDepth, capiLibrary, readOnly, forceFormat, discardFreed);
    }

    public DeviceSpec asReadOnly() {
        return new DeviceSpec(path, capacityBytes, engine, queueDepth, capiLibrary, true, forceFormat, discard);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof DeviceSpec)) {
            return false;
        }
        DeviceSpec other = (DeviceSpec) o;
        return Objects.equals(path, other.path)
                && capacityBytes == other.capacityBytes
                && Objects.equals(engine, other.engine)
                && queueDepth == other.queueDepth
                && Objects.equals(capiLibrary, other.capiLibrary)
                && readOnly == other.readOnly
                && forceFormat == other.forceFormat
                && discard == other.discard;
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, capacityBytes, engine, queueDepth, capiLibrary, readOnly, forceFormat, discard);
    }

    @Override
    public String toString() {
        return "DeviceSpec[path=" + path + ", capacityBytes=" + capacityBytes + ", engine=" + engine
                + ", queueDepth=" + queueDepth + ", capiLibrary=" + capiLibrary + ", readOnly=" + readOnly
                + ", forceFormat=" + forceFormat + ", discard=" + discard + "]";
    }
}

package io.flashchunk.checkpoint.tool;

import io.flashchunk.device.DeviceSignatures;
import java.nio.file.Path;

/**
 * What {@code device} found at a usable path: a regular file or a block device.
 */
final class DeviceReport implements Inspection {
    /** The cache's I/O unit: it addresses devices in blocks of this size. */
    static final int BLOCK_BYTES = 4096;

    private final Path path;
    private final DeviceKind kind;
    private final long sizeBytes;
    private final DirectReadCheck directRead;
    private final DeviceSignatures.Probe signatures;

    /**
     * @param path the path as given
     * @param kind regular file or block device
     * @param sizeBytes the file's length, or the block device's capacity
     * @param directRead whether the path opens for O_DIRECT reads
     * @param signatures what libblkid finds on it (file systems, RAID members, partition tables...), or
     *     why it could not look: the cache formats a device only when it finds none there
     */
    DeviceReport(Path path, DeviceKind kind, long sizeBytes, DirectReadCheck directRead,
                 DeviceSignatures.Probe signatures) {
        this.path = path;
        this.kind = kind;
        this.sizeBytes = sizeBytes;
        this.directRead = directRead;
        this.signatures = signatures;
    }

    public Path path() {
        return path;
    }

    public DeviceKind kind() {
        return kind;
    }

    public long sizeBytes() {
        return sizeBytes;
    }

    public DirectReadCheck directRead() {
        return directRead;
    }

    public DeviceSignatures.Probe signatures() {
        return signatures;
    }

    /** Whole blocks only: a trailing partial block cannot hold cache data. */
    long blocks() {
        return sizeBytes / BLOCK_BYTES;
    }

    /** E.g. "none (libblkid)", "btrfs (filesystem, at byte 65600)", "unknown (libblkid could not ...)". */
    String signaturesText() {
        if (!signatures.looked()) {
            return "unknown (" + signatures.failure() + ")";
        }
        return signatures.found().isEmpty() ? "none (libblkid)" : signatures.found().stream().map(Object::toString)
                .collect(java.util.stream.Collectors.joining(", "));
    }

    @Override
    public String toString() {
        return "DeviceReport[path=" + path + ", kind=" + kind + ", sizeBytes=" + sizeBytes
                + ", directRead=" + directRead + ", signatures=" + signatures + "]";
    }
}

package io.flashchunk.checkpoint.tool;

import java.nio.file.Path;

/**
 * What {@code device} found at a usable path: a regular file or a block device.
 *
 * @param path the path as given
 * @param kind regular file or block device
 * @param sizeBytes the file's length, or the block device's capacity
 * @param directRead whether the path opens for O_DIRECT reads
 */
record DeviceReport(Path path, DeviceKind kind, long sizeBytes, DirectReadCheck directRead)
        implements Inspection {
    /** The cache's I/O unit: it addresses devices in blocks of this size. */
    static final int BLOCK_BYTES = 4096;

    /** Whole blocks only: a trailing partial block cannot hold cache data. */
    long blocks() {
        return sizeBytes / BLOCK_BYTES;
    }
}

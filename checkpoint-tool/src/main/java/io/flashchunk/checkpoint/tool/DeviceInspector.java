package io.flashchunk.checkpoint.tool;

import io.flashchunk.device.DeviceOpenException;
import io.flashchunk.device.DevicePaths;
import io.flashchunk.device.DeviceSignatures;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Looks at a cache device path without writing to it, with the same checks and size rules the
 * cache itself uses. Symbolic links are followed, since /dev/disk/by-id names are links.
 */
final class DeviceInspector {
    /** How long libblkid may take: a hung device is reported as one that could not be probed. */
    private static final long PROBE_TIMEOUT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);

    private DeviceInspector() {
    }

    /**
     * @throws DeviceOpenException when the size of a usable path cannot be read; a missing or
     *     unsuitable path is not an error but an {@link UnusablePath}
     */
    static Inspection inspect(Path path) throws DeviceOpenException {
        if (!Files.exists(path)) {
            return new UnusablePath(path, DeviceKind.MISSING, "no such file or device");
        }
        DeviceKind kind;
        if (Files.isRegularFile(path)) {
            kind = DeviceKind.REGULAR_FILE;
        } else if (DevicePaths.isBlockDevice(path)) {
            kind = DeviceKind.BLOCK_DEVICE;
        } else {
            String what = Files.isDirectory(path) ? "is a directory" : "is neither a regular file nor a block device";
            return new UnusablePath(path, DeviceKind.OTHER, what);
        }
        return new DeviceReport(path, kind, DevicePaths.sizeBytes(path), DirectReadCheck.attempt(path),
                DeviceSignatures.probe(path.toString(), PROBE_TIMEOUT_NANOS));
    }
}

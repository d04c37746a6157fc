package io.flashchunk.checkpoint.tool;

import java.nio.file.Path;

/**
 * A path no cache can live on: nothing there, or something that is neither a regular file nor
 * a block device.
 *
 * @param path the path as given
 * @param kind {@link DeviceKind#MISSING} or {@link DeviceKind#OTHER}
 * @param description what is there instead, in words
 */
record UnusablePath(Path path, DeviceKind kind, String description) implements Inspection {

    /** One line naming the path, for standard error. */
    String message() {
        return path + ": " + description;
    }
}

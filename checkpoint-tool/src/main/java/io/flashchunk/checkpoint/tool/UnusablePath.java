package io.flashchunk.checkpoint.tool;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A path no cache can live on: nothing there, or something that is neither a regular file nor
 * a block device.
 */
final class UnusablePath implements Inspection {
    private final Path path;
    private final DeviceKind kind;
    private final String description;

    /**
     * @param path the path as given
     * @param kind {@link DeviceKind#MISSING} or {@link DeviceKind#OTHER}
     * @param description what is there instead, in words
     */
    UnusablePath(Path path, DeviceKind kind, String description) {
        this.path = path;
        this.kind = kind;
        this.description = description;
    }

    public Path path() {
        return path;
    }

    public DeviceKind kind() {
        return kind;
    }

    public String description() {
        return description;
    }

    /** One line naming the path, for standard error. */
    String message() {
        return path + ": " + description;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof UnusablePath)) {
            return false;
        }
        UnusablePath other = (UnusablePath) o;
        return Objects.equals(path, other.path)
                && Objects.equals(kind, other.kind)
                && Objects.equals(description, other.description);
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, kind, description);
    }

    @Override
    public String toString() {
        return "UnusablePath[path=" + path + ", kind=" + kind + ", description=" + description + "]";
    }
}

package io.flashchunk.checkpoint.tool;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * Whether a path opens for O_DIRECT reads, which the cache needs to bypass the page cache.
 * Some file systems (tmpfs on older kernels, some FUSE and network ones) refuse it.
 */
final class DirectReadCheck {
    private final boolean opened;
    private final String error;

    /**
     * @param opened whether the open succeeded
     * @param error why it failed, or null when it opened
     */
    DirectReadCheck(boolean opened, String error) {
        this.opened = opened;
        this.error = error;
    }

    public boolean opened() {
        return opened;
    }

    public String error() {
        return error;
    }

    /** Tries the open and closes the channel at once; reads nothing. */
    static DirectReadCheck attempt(Path path) {
        try {
            FileChannel.open(path, StandardOpenOption.READ, ExtendedOpenOption.DIRECT).close();
            return new DirectReadCheck(true, null);
        } catch (IOException | UnsupportedOperationException e) {
            // The reason alone ("Invalid argument"): the report already names the path.
            return new DirectReadCheck(false, IoErrors.reason(e));
        }
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof DirectReadCheck)) {
            return false;
        }
        DirectReadCheck other = (DirectReadCheck) o;
        return opened == other.opened
                && Objects.equals(error, other.error);
    }

    @Override
    public int hashCode() {
        return Objects.hash(opened, error);
    }

    @Override
    public String toString() {
        return "DirectReadCheck[opened=" + opened + ", error=" + error + "]";
    }
}

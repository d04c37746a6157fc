package io.flashchunk.cache.files;

import io.flashchunk.device.FileStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What makes a data file the same file. Its path is not enough (a file deleted and written again
 * under its name holds other bytes), and neither is its inode number: ext4 gives a file created
 * just after a deletion the freed inode. A new file never shares its predecessor's birth time or
 * inode generation, so those are what prove a file is the one the cache knew; where the file
 * system reports neither, nothing can prove it, and its chunks are not kept.
 */
public final class FileIdentity {
    /** A birth time or generation the file system does not report. */
    public static final long UNKNOWN = FileStatus.UNKNOWN;

    private final String path;
    private final long sizeBytes;
    private final long modifiedMillis;
    private final long inode;
    private final long birthNanos;
    private final long generation;

    /**
     * @param inode      the inode number
     * @param birthNanos the birth time in nanoseconds since the epoch, or {@link #UNKNOWN}
     * @param generation the inode generation, or {@link #UNKNOWN}
     */
    public FileIdentity(String path, long sizeBytes, long modifiedMillis, long inode, long birthNanos,
                        long generation) {
        this.path = path;
        this.sizeBytes = sizeBytes;
        this.modifiedMillis = modifiedMillis;
        this.inode = inode;
        this.birthNanos = birthNanos;
        this.generation = generation;
    }

    public String path() {
        return path;
    }

    public long sizeBytes() {
        return sizeBytes;
    }

    public long modifiedMillis() {
        return modifiedMillis;
    }

    public long inode() {
        return inode;
    }

    public long birthNanos() {
        return birthNanos;
    }

    public long generation() {
        return generation;
    }

    /** The identity of the file at {@code path} now. */
    public static FileIdentity of(Path path) throws IOException {
        String absolute = path.toAbsolutePath().toString();
        FileStatus status = FileStatus.of(absolute);
        return new FileIdentity(absolute, status.sizeBytes(), status.modifiedMillis(), status.inode(),
                status.birthNanos(), status.generation());
    }

    /** Whether anything can tell this file from another that later takes its path and inode. */
    public boolean provable() {
        return birthNanos != UNKNOWN || generation != UNKNOWN;
    }

    /**
     * Whether {@code other} is provably this very file, though perhaps written to since: same path
     * and inode, and the same birth time or generation, with neither differing. Size and
     * modification time are the caller's to judge.
     */
    public boolean sameFileAs(FileIdentity other) {
        if (!path.equals(other.path) || inode != other.inode) {
            return false;
        }
        boolean birthsKnown = birthNanos != UNKNOWN && other.birthNanos != UNKNOWN;
        boolean generationsKnown = generation != UNKNOWN && other.generation != UNKNOWN;
        if (birthsKnown && birthNanos != other.birthNanos || generationsKnown && generation != other.generation) {
            return false;
        }
        return birthsKnown || generationsKnown;
    }

    /**
     * Whether nothing known tells {@code other} from this file: same path and inode, and no birth
     * time or generation that differs. Weaker than {@link #sameFileAs}: it says a file may still be
     * there, not that its chunks may be served.
     */
    public boolean notToldApartFrom(FileIdentity other) {
        return path.equals(other.path) && inode == other.inode
                && (birthNanos == UNKNOWN || other.birthNanos == UNKNOWN || birthNanos == other.birthNanos)
                && (generation == UNKNOWN || other.generation == UNKNOWN || generation == other.generation);
    }

    /**
     * Whether the file at this path is still this file, unchanged (provably the same file, same size
     * and modification time): what a checkpoint's entries for it need to come back.
     */
    public boolean unchangedOnDisk() {
        try {
            FileIdentity now = of(Path.of(path));
            return now.sameFileAs(this) && now.sizeBytes == sizeBytes && now.modifiedMillis == modifiedMillis;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FileIdentity)) {
            return false;
        }
        FileIdentity other = (FileIdentity) o;
        return Objects.equals(path, other.path)
                && sizeBytes == other.sizeBytes
                && modifiedMillis == other.modifiedMillis
                && inode == other.inode
                && birthNanos == other.birthNanos
                && generation == other.generation;
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, sizeBytes, modifiedMillis, inode, birthNanos, generation);
    }

    @Override
    public String toString() {
        return "FileIdentity[path=" + path + ", sizeBytes=" + sizeBytes + ", modifiedMillis=" + modifiedMillis
                + ", inode=" + inode + ", birthNanos=" + birthNanos + ", generation=" + generation + "]";
    }
}

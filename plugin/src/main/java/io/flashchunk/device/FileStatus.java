package io.flashchunk.device;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Objects;

/**
 * A file's status as Linux knows it, with what Java's file attributes leave out: the birth time
 * ({@code statx(2)}, STATX_BTIME) and the inode generation ({@code FS_IOC_GETVERSION}). A file
 * deleted and written again under its name can get the old inode number back (ext4 reuses it at
 * once), and then only these two tell the files apart.
 */
public final class FileStatus {
    public static final long UNKNOWN = Long.MIN_VALUE;

    private static final int AT_FDCWD = -100;
    private static final int STATX_BASIC_STATS = 0x7ff;
    private static final int STATX_BTIME = 0x800;
    /** _IOR('v', 1, long); ext4, XFS and others answer it, tmpfs does not. */
    private static final long FS_IOC_GETVERSION = 0x80087601L;
    private static final int STATX_BYTES = 256;
    private static final int ENOTDIR = 20;
    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFBLK = 0060000;

    private final long inode;
    private final long sizeBytes;
    private final long modifiedMillis;
    private final long birthNanos;
    private final long generation;
    private final int mode;
    private final long device;
    private final long specialDevice;

    /**
     * @param birthNanos     birth time in nanoseconds since the epoch, or {@link #UNKNOWN} where the
     *     file system does not report it
     * @param generation     the inode generation (an unsigned 32-bit value), or {@link #UNKNOWN} where
     *     the file system has none (and for anything but a regular file)
     * @param mode           file type and permissions ({@code st_mode})
     * @param device         the device holding the inode, {@code major << 32 | minor}
     * @param specialDevice  for a block or character device, the device it is, {@code major << 32 | minor}
     */
    public FileStatus(long inode, long sizeBytes, long modifiedMillis, long birthNanos, long generation, int mode,
                      long device, long specialDevice) {
        this.inode = inode;
        this.sizeBytes = sizeBytes;
        this.modifiedMillis = modifiedMillis;
        this.birthNanos = birthNanos;
        this.generation = generation;
        this.mode = mode;
        this.device = device;
        this.specialDevice = specialDevice;
    }

    public long inode() {
        return inode;
    }

    public long sizeBytes() {
        return sizeBytes;
    }

    public long modifiedMillis() {
        return modifiedMillis;
    }

    public long birthNanos() {
        return birthNanos;
    }

    public long generation() {
        return generation;
    }

    public int mode() {
        return mode;
    }

    public long device() {
        return device;
    }

    public long specialDevice() {
        return specialDevice;
    }

    /** The status of the file at {@code path} (symbolic links followed), now. */
    public static FileStatus of(String path) throws IOException {
        byte[] bytes = new byte[STATX_BYTES];
        try {
            Calls.statx(AT_FDCWD, path, 0, STATX_BASIC_STATS | STATX_BTIME, bytes);
        } catch (LastErrorException e) {
            throw failure(path, "statx", e.getErrorCode());
        }
        // struct statx (x86-64 and aarch64 alike): mask at 0, mode at 28, ino at 32, size at 40, btime at 80,
        // mtime at 112, rdev major and minor at 128 and 132, dev major and minor at 136 and 140.
        ByteBuffer statx = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
        long birth = (statx.getInt(0) & STATX_BTIME) == 0 ? UNKNOWN : nanos(statx, 80);
        int mode = Short.toUnsignedInt(statx.getShort(28));
        return new FileStatus(statx.getLong(32), statx.getLong(40), Math.floorDiv(nanos(statx, 112), 1_000_000),
                birth, (mode & S_IFMT) == S_IFREG ? generation(path) : UNKNOWN, mode, deviceNumber(statx, 136),
                deviceNumber(statx, 128));
    }

    public boolean isBlockDevice() {
        return (mode & S_IFMT) == S_IFBLK;
    }

    public boolean isRegularFile() {
        return (mode & S_IFMT) == S_IFREG;
    }

    private static long deviceNumber(ByteBuffer statx, int offset) {
        return Integer.toUnsignedLong(statx.getInt(offset)) << 32 | Integer.toUnsignedLong(statx.getInt(offset + 4));
    }

    /** struct statx_timestamp at {@code offset}: s64 seconds, u32 nanoseconds. */
    private static long nanos(ByteBuffer statx, int offset) {
        return statx.getLong(offset) * 1_000_000_000L + Integer.toUnsignedLong(statx.getInt(offset + 8));
    }

    private static long generation(String path) {
        int fd;
        try {
            fd = LibC.open(path, LibC.O_RDONLY | LibC.O_CLOEXEC);
        } catch (LastErrorException e) {
            return UNKNOWN; // unreadable: the birth time still answers
        }
        try {
            // The kernel stores an int whatever the request's size says; two leave room for a long.
            int[] value = new int[2];
            Calls.ioctl(fd, FS_IOC_GETVERSION, value);
            return Integer.toUnsignedLong(value[0]);
        } catch (LastErrorException e) {
            return UNKNOWN;
        } finally {
            closeQuietly(fd);
        }
    }

    private static void closeQuietly(int fd) {
        try {
            LibC.close(fd);
        } catch (LastErrorException e) {
            // a read-only descriptor: nothing was written that could be lost
        }
    }

    private static IOException failure(String path, String call, int errno) {
        switch (errno) {
            case Errno.ENOENT:
            case ENOTDIR:
                return new NoSuchFileException(path);
            case Errno.EACCES:
                return new AccessDeniedException(path);
            default:
                return new IOException(path + ": " + call + " failed: " + Errno.describe(errno));
        }
    }

    /** The two calls, bound by JNA direct mapping. */
    private static final class Calls {
        static {
            Native.register(Calls.class, Platform.C_LIBRARY_NAME);
        }

        static native int statx(int dirfd, String path, int flags, int mask, byte[] statx) throws LastErrorException;

        static native int ioctl(int fd, long request, int[] argument) throws LastErrorException;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FileStatus)) {
            return false;
        }
        FileStatus other = (FileStatus) o;
        return inode == other.inode
                && sizeBytes == other.sizeBytes
                && modifiedMillis == other.modifiedMillis
                && birthNanos == other.birthNanos
                && generation == other.generation
                && mode == other.mode
                && device == other.device
                && specialDevice == other.specialDevice;
    }

    @Override
    public int hashCode() {
        return Objects.hash(inode, sizeBytes, modifiedMillis, birthNanos, generation, mode, device, specialDevice);
    }

    @Override
    public String toString() {
        return "FileStatus[inode=" + inode + ", sizeBytes=" + sizeBytes + ", modifiedMillis=" + modifiedMillis
                + ", birthNanos=" + birthNanos + ", generation=" + generation + ", mode=" + mode + ", device=" + device
                + ", specialDevice=" + specialDevice + "]";
    }
}

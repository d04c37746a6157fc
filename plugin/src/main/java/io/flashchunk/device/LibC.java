package io.flashchunk.device;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.Platform;

/** The few libc calls the devices need, bound by JNA direct mapping (no per-call reflection). */
public final class LibC {
    public static final int O_RDONLY = 0;
    public static final int O_RDWR = 2;
    /** On a block device: open only if no one else holds it exclusively (a mount does), and hold it so. */
    public static final int O_EXCL = 0x80;
    public static final int O_DIRECT = 0x4000;
    public static final int O_CLOEXEC = 0x80000;

    static {
        Native.register(LibC.class, Platform.C_LIBRARY_NAME);
    }

    private LibC() {
    }

    public static native int open(String path, int flags) throws LastErrorException;

    public static native int close(int fd) throws LastErrorException;

    public static native int fdatasync(int fd) throws LastErrorException;

    public static final int LOCK_EX = 2;
    public static final int LOCK_NB = 4;

    /** int flock(int fd, int operation): a lock on the open file description, released when it closes. */
    public static native int flock(int fd, int operation) throws LastErrorException;

    /** ssize_t pread(int fd, void *buf, size_t count, off_t offset), LP64. */
    public static native long pread(int fd, com.sun.jna.Pointer buffer, long count, long offset)
            throws LastErrorException;

    /** fallocate(2)'s mode: free the range's blocks (reads then return zeros), keep the file's size. */
    public static final int FALLOC_FL_KEEP_SIZE = 0x01;
    public static final int FALLOC_FL_PUNCH_HOLE = 0x02;

    /** int fallocate(int fd, int mode, off_t offset, off_t len), LP64. */
    public static native int fallocate(int fd, int mode, long offset, long length) throws LastErrorException;

    /** BLKDISCARD, _IO(0x12, 119): discard a byte range {start, length} of a block device. */
    public static final long BLKDISCARD = 0x1277;

    /** int ioctl(int fd, unsigned long request, uint64_t range[2]) for BLKDISCARD. */
    public static native int ioctl(int fd, long request, long[] range) throws LastErrorException;

    public static native int setenv(String name, String value, int overwrite) throws LastErrorException;

    public static native int unsetenv(String name) throws LastErrorException;

    static native String strerror(int errno);
}

package io.flashchunk.device;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A cache's hold on its device for as long as it uses it, so that nothing else writes there and it
 * writes nowhere else's: an exclusive {@code flock} (a second cache, in this JVM or another, or the
 * same device listed twice, cannot take it), and on a block device an {@code O_EXCL} open (a mounted
 * device is refused, and the device cannot be mounted while the cache holds it).
 */
final class DeviceLock implements AutoCloseable {
    private final String path;
    private int fd;

    private DeviceLock(String path, int fd) {
        this.path = path;
        this.fd = fd;
    }

    /** Takes the device at {@code path}, or throws naming who holds it as far as can be told. */
    static DeviceLock acquire(Path path) throws DeviceOpenException {
        String name = path.toString();
        boolean block;
        try {
            block = FileStatus.of(name).isBlockDevice();
        } catch (java.nio.file.NoSuchFileException e) {
            throw new DeviceOpenException("device path " + name + " does not exist");
        } catch (IOException e) {
            throw new DeviceOpenException("cannot examine device " + name + ": " + e.getMessage(), e);
        }
        int fd;
        try {
            fd = LibC.open(name, LibC.O_RDONLY | LibC.O_CLOEXEC | (block ? LibC.O_EXCL : 0));
        } catch (LastErrorException e) {
            if (block && e.getErrorCode() == Errno.EBUSY) {
                throw new DeviceOpenException("device " + name + " is in use: it is mounted, or another program "
                        + "holds it exclusively; the cache writes only to a device nothing else uses");
            }
            throw new DeviceOpenException("cannot open device " + name + ": " + Errno.describe(e.getErrorCode()));
        }
        try {
            LibC.flock(fd, LibC.LOCK_EX | LibC.LOCK_NB);
        } catch (LastErrorException e) {
            closeQuietly(fd);
            if (e.getErrorCode() == Errno.EAGAIN) {
                throw new DeviceOpenException("device " + name + " is already in use by a flash cache (it is locked: "
                        + "another node on this machine, or this one listing the same device twice)");
            }
            throw new DeviceOpenException("cannot lock device " + name + ": " + Errno.describe(e.getErrorCode()));
        }
        return new DeviceLock(name, fd);
    }

    String path() {
        return path;
    }

    /** Lets the device go (the lock goes with the descriptor). Idempotent. */
    @Override
    public synchronized void close() {
        if (fd >= 0) {
            closeQuietly(fd);
            fd = -1;
        }
    }

    private static void closeQuietly(int fd) {
        try {
            LibC.close(fd);
        } catch (LastErrorException e) {
            // read-only: nothing to lose
        }
    }
}

package io.flashchunk.device;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Checks and measures the file or block device a cache device is configured on. */
public final class DevicePaths {
    private DevicePaths() {
    }

    /** Fails with a message naming the path unless it exists and is a regular file or a block device. */
    public static void checkUsable(Path path) throws DeviceOpenException {
        if (!Files.exists(path)) {
            throw new DeviceOpenException("device path " + path + " does not exist");
        }
        if (!Files.isRegularFile(path) && !isBlockDevice(path)) {
            throw new DeviceOpenException("device path " + path + " is neither a regular file nor a block device");
        }
    }

    public static boolean isBlockDevice(Path path) {
        try {
            Object mode = Files.getAttribute(path, "unix:mode");
            return mode instanceof Integer && ((Integer) mode & 0xF000) == 0x6000;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    /** Size in bytes of a regular file or a block device (whose stat size is 0, so it is asked by seek). */
    public static long sizeBytes(Path path) throws DeviceOpenException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            return channel.size();
        } catch (IOException e) {
            throw new DeviceOpenException("cannot determine the size of " + path + ": " + e, e);
        }
    }

    /**
     * The usable capacity in blocks: the whole device when {@code requestedBytes} is 0, else the
     * requested size, which must be a multiple of the block size and fit on the device.
     */
    public static long capacityBlocks(Path path, long requestedBytes, long deviceBytes) throws DeviceOpenException {
        if (requestedBytes < 0) {
            throw new DeviceOpenException("capacity for " + path + " must not be negative, got " + requestedBytes);
        }
        if (requestedBytes % BlockDevice.BLOCK_SIZE != 0) {
            throw new DeviceOpenException("capacity " + requestedBytes + " bytes for " + path
                    + " is not a multiple of the block size " + BlockDevice.BLOCK_SIZE);
        }
        if (requestedBytes > deviceBytes) {
            throw new DeviceOpenException("capacity " + requestedBytes + " bytes asked for " + path
                    + " is larger than the device (" + deviceBytes + " bytes)");
        }
        long bytes = requestedBytes == 0 ? deviceBytes : requestedBytes;
        long blocks = bytes / BlockDevice.BLOCK_SIZE;
        if (blocks == 0) {
            throw new DeviceOpenException("device " + path + " is smaller than one block (" + deviceBytes + " bytes)");
        }
        return blocks;
    }
}

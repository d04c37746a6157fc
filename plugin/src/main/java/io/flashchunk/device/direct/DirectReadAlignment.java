package io.flashchunk.device.direct;

import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.FileStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The finest O_DIRECT read of a file or disk, found without I/O (a probe read would hang the open of a
 * hung disk): what the kernel reports for the file (STATX_DIOALIGN), else a disk's logical block size
 * from sysfs, else a whole {@value BlockDevice#BLOCK_SIZE}-byte block, which every device here takes.
 * A value outside 512..{@value BlockDevice#BLOCK_SIZE} or not a power of two is not trusted: a block.
 */
final class DirectReadAlignment {
    private DirectReadAlignment() {
    }

    /** @param sysfs the sysfs root ({@code /sys}; tests pass a directory of their own) */
    static int of(FileStatus status, Path sysfs) {
        int reported = status.directIoOffsetAlignment();
        if (reported == 0 && status.isBlockDevice()) {
            reported = logicalBlockSize(status.specialDevice(), sysfs);
        }
        boolean usable = reported >= 512 && reported <= BlockDevice.BLOCK_SIZE && Integer.bitCount(reported) == 1;
        return usable ? reported : BlockDevice.BLOCK_SIZE;
    }

    /**
     * {@code /sys/dev/block/MAJOR:MINOR/queue/logical_block_size} (a partition has its disk's, one
     * level up), or 0 where it cannot be read.
     */
    private static int logicalBlockSize(long deviceNumber, Path sysfs) {
        Path device = sysfs.resolve("dev/block/" + (deviceNumber >>> 32) + ":" + (deviceNumber & 0xffffffffL));
        for (String queue : new String[] {"queue", "../queue"}) {
            try {
                return Integer.parseInt(Files.readString(device.resolve(queue + "/logical_block_size")).trim());
            } catch (IOException | NumberFormatException e) {
                // not here: try the disk's, then give up
            }
        }
        return 0;
    }
}

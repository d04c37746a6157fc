package io.flashchunk.device.direct;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.FileStatus;
import io.flashchunk.device.IoEngine;
import io.flashchunk.testing.Scratch;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectReadAlignmentTest {
    private static final int S_IFREG = 0100000;
    private static final int S_IFBLK = 0060000;
    private static final long LOOP_7_3 = 7L << 32 | 3;

    @TempDir
    Path sysfs;

    private static FileStatus file(int dioAlignment) {
        return new FileStatus(1, 1 << 20, 0, 0, 0, S_IFREG, 0, 0, dioAlignment);
    }

    private static FileStatus disk(int dioAlignment) {
        return new FileStatus(1, 0, 0, 0, 0, S_IFBLK, 0, LOOP_7_3, dioAlignment);
    }

    private void logicalBlockSize(String device, String value) throws Exception {
        Path queue = Files.createDirectories(sysfs.resolve("dev/block/" + device + "/queue"));
        Files.writeString(queue.resolve("logical_block_size"), value);
    }

    @Test
    void theKernelsAnswerForTheFileIsTaken() {
        assertEquals(512, DirectReadAlignment.of(file(512), sysfs));
        assertEquals(2048, DirectReadAlignment.of(file(2048), sysfs));
        assertEquals(4096, DirectReadAlignment.of(disk(4096), sysfs));
    }

    @Test
    void aFileTheKernelSaysNothingAboutIsReadInBlocks() {
        assertEquals(BlockDevice.BLOCK_SIZE, DirectReadAlignment.of(file(0), sysfs));
    }

    @Test
    void aDiskTheKernelSaysNothingAboutIsReadInItsLogicalBlocks() throws Exception {
        logicalBlockSize("7:3", "512\n");
        assertEquals(512, DirectReadAlignment.of(disk(0), sysfs));
    }

    @Test
    void aPartitionIsReadInItsDisksLogicalBlocks() throws Exception {
        // /sys/dev/block/7:3 stands for a partition: no queue of its own, its disk's one level up.
        Files.createDirectories(sysfs.resolve("dev/block/disk/part"));
        Files.createDirectories(sysfs.resolve("dev/block/disk/queue"));
        Files.writeString(sysfs.resolve("dev/block/disk/queue/logical_block_size"), "1024\n");
        Files.createSymbolicLink(sysfs.resolve("dev/block/7:3"), sysfs.resolve("dev/block/disk/part"));
        assertEquals(1024, DirectReadAlignment.of(disk(0), sysfs));
    }

    @Test
    void answersThatAreNotAUnitBetween512AndABlockMeanWholeBlocks() throws Exception {
        assertEquals(BlockDevice.BLOCK_SIZE, DirectReadAlignment.of(file(8192), sysfs));
        assertEquals(BlockDevice.BLOCK_SIZE, DirectReadAlignment.of(file(256), sysfs));
        assertEquals(BlockDevice.BLOCK_SIZE, DirectReadAlignment.of(file(1536), sysfs));
        logicalBlockSize("7:3", "not a number");
        assertEquals(BlockDevice.BLOCK_SIZE, DirectReadAlignment.of(disk(0), sysfs));
        assertEquals(BlockDevice.BLOCK_SIZE, DirectReadAlignment.of(disk(0), sysfs.resolve("missing")));
    }

    @Test
    void aLibaioDeviceOnAFileReadsInWhatTheKernelSaysAndTheThreadPoolInBlocks() throws Exception {
        Path path = Scratch.file("read-alignment", 1 << 20);
        try {
            int expected = DirectReadAlignment.of(FileStatus.of(path.toString()), Path.of("/sys"));
            try (BlockDevice aio = BlockDevices.open(DeviceSpec.of(path).withEngine(IoEngine.LIBAIO))) {
                assertEquals(expected, aio.readAlignment());
            }
            try (BlockDevice pool = BlockDevices.open(DeviceSpec.of(path).withEngine(IoEngine.THREADPOOL))) {
                assertEquals(BlockDevice.BLOCK_SIZE, pool.readAlignment());
            }
        } finally {
            Files.deleteIfExists(path);
        }
    }
}

package io.flashchunk.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.testing.Backend;
import io.flashchunk.testing.Buffers;
import io.flashchunk.testing.Commands;
import io.flashchunk.testing.LoopDevice;
import io.flashchunk.testing.Scratch;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Discard (TRIM) on real parts: a file's blocks freed by a punched hole, a loop device's by
 * BLKDISCARD (which punches the hole in its backing file); the range reads as zeros, the blocks around
 * it keep their bytes, and the file system gets the space back. Engines that cannot discard say so
 * and change nothing.
 */
class DiscardTest {
    private static final int BLOCK = BlockDevice.BLOCK_SIZE;
    private static final int BLOCKS = 64;

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"LIBAIO", "IO_URING"})
    void aFilesDiscardedBlocksReadAsZerosAndGoBackToTheFileSystem(Backend backend) throws Exception {
        Path file = Scratch.file("discard-" + backend, (long) BLOCKS * BLOCK);
        try (BlockDevice device = backend.open(file, 8)) {
            writeAll(device);
            device.flush();
            long before = allocatedBytes(file);
            assertTrue(before >= (long) BLOCKS * BLOCK, "written: " + before + " bytes allocated");
            assertTrue(device.discard(16, 32));
            assertEquals(before - 32L * BLOCK, allocatedBytes(file), "the 32 blocks' space is the file system's again");
            assertDiscarded(device, 16, 32);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void aLoopDevicesDiscardedBlocksReadAsZerosAndItsBackingFileShrinks() throws Exception {
        try (LoopDevice loop = LoopDevice.attach((long) BLOCKS * BLOCK)) {
            Path backing = Path.of(Commands.run("losetup", "-nO", "BACK-FILE", loop.path().toString()).trim());
            try (BlockDevice device = Backend.LIBAIO.open(loop.path(), 8)) {
                writeAll(device);
                device.flush();
                long before = allocatedBytes(backing);
                long discardedSectors = discardedSectors(loop.path());
                assertTrue(device.discard(8, 40), "a loop device discards");
                // A discard the block layer counts as one (not a write of zeros, which a loop device also
                // turns into a hole).
                assertEquals(discardedSectors + 40L * BLOCK / 512, discardedSectors(loop.path()), "sectors discarded");
                assertTrue(allocatedBytes(backing) <= before - 40L * BLOCK,
                        "the backing file gave back the blocks: " + before + " -> " + allocatedBytes(backing));
                assertDiscarded(device, 8, 40);
            }
        }
    }

    /** The block layer's count of sectors discarded on {@code device} (its stat file's 14th field). */
    private static long discardedSectors(Path device) throws Exception {
        String[] fields = Files.readString(Path.of("/sys/block", device.getFileName().toString(), "stat")).trim()
                .split("\\s+");
        return Long.parseLong(fields[13]);
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"THREADPOOL", "CAPI"})
    void anEngineThatCannotDiscardSaysSoAndChangesNothing(Backend backend) throws Exception {
        Path file = Scratch.file("no-discard-" + backend, (long) BLOCKS * BLOCK);
        try (BlockDevice device = backend.open(file, 8)) {
            writeAll(device);
            assertFalse(device.discard(0, BLOCKS));
            ByteBuffer buffer = AlignedBuffers.allocate(BLOCKS * BLOCK);
            device.read(0, buffer).join();
            assertArrayEquals(pattern(0, BLOCKS), Buffers.bytes(buffer));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void aDiscardOutsideTheDeviceOnAReadOnlyOrClosedDeviceIsRefused() throws Exception {
        Path file = Scratch.file("discard-bad", (long) BLOCKS * BLOCK);
        try {
            BlockDevice device = Backend.LIBAIO.open(file, 8);
            IllegalArgumentException outside = assertThrows(IllegalArgumentException.class, () -> device.discard(60, 8));
            assertTrue(outside.getMessage().contains("LBA 60") && outside.getMessage().contains(file.toString()),
                    outside.getMessage());
            assertThrows(IllegalArgumentException.class, () -> device.discard(0, 0));
            device.close();
            assertThrows(DeviceClosedException.class, () -> device.discard(0, 1));
            try (BlockDevice readOnly = BlockDevices.open(Backend.LIBAIO.spec(file).asReadOnly())) {
                IllegalStateException refused = assertThrows(IllegalStateException.class, () -> readOnly.discard(0, 1));
                assertTrue(refused.getMessage().contains("read-only"), refused.getMessage());
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static void writeAll(BlockDevice device) {
        ByteBuffer data = AlignedBuffers.allocate(BLOCKS * BLOCK);
        data.put(pattern(0, BLOCKS)).flip();
        device.write(0, data).join();
    }

    /** Blocks lba..lba+count-1 read as zeros; every other block as written. */
    private static void assertDiscarded(BlockDevice device, int lba, int count) {
        ByteBuffer buffer = AlignedBuffers.allocate(BLOCKS * BLOCK);
        device.read(0, buffer).join();
        byte[] read = Buffers.bytes(buffer);
        byte[] expected = pattern(0, BLOCKS);
        Arrays.fill(expected, lba * BLOCK, (lba + count) * BLOCK, (byte) 0);
        assertArrayEquals(expected, read);
    }

    private static long allocatedBytes(Path file) throws Exception {
        String[] blocksAndUnit = Commands.run("stat", "-c", "%b %B", file.toString()).trim().split(" ");
        return Long.parseLong(blocksAndUnit[0]) * Long.parseLong(blocksAndUnit[1]);
    }

    private static byte[] pattern(int lba, int blocks) {
        byte[] bytes = new byte[blocks * BLOCK];
        for (int i = 0; i < bytes.length; i++) {
            long at = (long) lba * BLOCK + i;
            bytes[i] = (byte) (at * 13 + at / BLOCK + 1);
        }
        return bytes;
    }
}

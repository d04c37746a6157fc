package io.flashchunk.cache.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.upgrade.PerChunkEngine;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.PerChunkSuperblock;
import java.nio.ByteOrder;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DeviceLayoutTest {
    @Test
    void fillsTheDeviceWithSegmentsAndAreasThatHoldAFullCheckpoint() {
        for (long bytes : new long[] {4L << 20, 100L << 20, 1L << 30, 2L << 40}) {
            for (int segmentBytes : new int[] {256 << 10, 16 << 20}) {
                long blocks = bytes / BlockDevice.BLOCK_SIZE;
                if (blocks < 1 + 2 * 18 + segmentBytes / BlockDevice.BLOCK_SIZE) {
                    continue;
                }
                DeviceLayout layout = DeviceLayout.forDevice(blocks, segmentBytes);
                SegmentLayout segments = layout.segmentLayout();
                long end = segments.startByte(segments.segments() - 1) + segmentBytes;
                String what = bytes + " bytes, " + segmentBytes + "-byte segments";
                assertTrue(end <= bytes, what + ": the last segment ends inside the device");
                assertTrue(bytes - end < segmentBytes + 2L * BlockDevice.BLOCK_SIZE
                        + 2 * segmentBytes / BlockDevice.BLOCK_SIZE * 12, what + ": room left for no more segments");
                CheckpointAreas areas = layout.areas();
                assertEquals(areas.start(1) + layout.areaBlocks(), segments.firstByte() / BlockDevice.BLOCK_SIZE);
                long fullCheckpoint = (long) layout.segments() * CheckpointHeader.SEGMENT_BYTES
                        + (long) layout.segments() * (segmentBytes / BlockDevice.BLOCK_SIZE) * CheckpointHeader.ENTRY_BYTES
                        + DeviceLayout.fileTableBudget(blocks);
                assertTrue(areas.bodyCapacityBytes() >= fullCheckpoint, what);
            }
        }
        // 2 TiB of 16 MiB segments: the areas take a fraction of a percent.
        DeviceLayout large = DeviceLayout.forDevice((2L << 40) / BlockDevice.BLOCK_SIZE, 16 << 20);
        assertTrue(large.areaBlocks() * 2.0 / large.deviceBlocks() < 0.01, large.toString());
        assertThrows(IllegalArgumentException.class, () -> DeviceLayout.forDevice(100, 16 << 20));
        // 8 TiB: used up to the 4 TiB a space's record addresses reach.
        DeviceLayout huge = DeviceLayout.forDevice((8L << 40) / BlockDevice.BLOCK_SIZE, 16 << 20);
        SegmentLayout reach = huge.segmentLayout();
        long end = reach.startByte(reach.segments() - 1) + (16 << 20);
        assertTrue(end <= 4L << 40 && end > (4L << 40) - (64L << 20), "ends at " + end);
    }

    @Test
    void itsSuperblockIsNotThePerChunkEnginesAndThatOneIsRecognised() throws Exception {
        DeviceLayout layout = DeviceLayout.forDevice((64L << 20) / BlockDevice.BLOCK_SIZE, 1 << 20);
        Superblock superblock = new Superblock(UUID.randomUUID(), 1, 3, layout, 1L << 36);
        assertEquals(superblock, Superblock.decode(superblock.encode(), "dev"));
        assertTrue(!PerChunkEngine.holdsFormat(superblock.encode()));

        var old = PerChunkSuperblock.block(UUID.randomUUID(), (64L << 20) / BlockDevice.BLOCK_SIZE);
        assertTrue(PerChunkEngine.holdsFormat(old));
        String refused = assertThrows(CheckpointFormatException.class, () -> Superblock.decode(old, "dev"))
                .getMessage();
        assertTrue(refused.contains("per-chunk engine"), refused);

        var torn = superblock.encode();
        torn.put(50, (byte) 1);
        assertTrue(assertThrows(CheckpointFormatException.class, () -> Superblock.decode(torn, "dev"))
                .getMessage().contains("checksum"));
        var badSpace = new Superblock(UUID.randomUUID(), 3, 3, layout, 1L << 36).encode();
        assertTrue(assertThrows(CheckpointFormatException.class, () -> Superblock.decode(badSpace, "dev"))
                .getMessage().contains("space 3 of 3"));
        var impossible = superblock.encode().order(ByteOrder.LITTLE_ENDIAN);
        impossible.putInt(60, Integer.MAX_VALUE); // more segments than the device holds
        impossible.putInt(72, crcOf(impossible, 72));
        assertTrue(assertThrows(CheckpointFormatException.class, () -> Superblock.decode(impossible, "dev"))
                .getMessage().contains("impossible"));
    }

    /** A superblock written before sequences were reserved is still read: its limit is unknown (0). */
    @Test
    void aVersion3SuperblockIsReadWithoutAReservation() throws Exception {
        DeviceLayout layout = DeviceLayout.forDevice((64L << 20) / BlockDevice.BLOCK_SIZE, 1 << 20);
        Superblock today = new Superblock(UUID.randomUUID(), 0, 1, layout, 1L << 36);
        var version3 = today.encode().order(ByteOrder.LITTLE_ENDIAN);
        version3.putInt(8, 3).putLong(64, 0).putInt(72, 0);
        version3.putInt(64, crcOf(version3, 64));
        assertEquals(today.reserving(0), Superblock.decode(version3, "dev"));
        assertTrue(Superblock.holdsEngineFormat(version3));
    }

    private static int crcOf(java.nio.ByteBuffer block, int crcAt) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(block.duplicate().position(0).limit(crcAt));
        return (int) crc.getValue();
    }
}

package io.flashchunk.cache.compact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.checkpoint.CheckpointFormatException;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.PerChunkSuperblock;
import java.nio.ByteOrder;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CompactDeviceLayoutTest {
    @Test
    void fillsTheDeviceWithSegmentsAndAreasThatHoldAFullCheckpoint() {
        for (long bytes : new long[] {4L << 20, 100L << 20, 1L << 30, 2L << 40}) {
            for (int segmentBytes : new int[] {256 << 10, 16 << 20}) {
                long blocks = bytes / BlockDevice.BLOCK_SIZE;
                if (blocks < 1 + 2 * 18 + segmentBytes / BlockDevice.BLOCK_SIZE) {
                    continue;
                }
                CompactDeviceLayout layout = CompactDeviceLayout.forDevice(blocks, segmentBytes);
                SegmentLayout segments = layout.segmentLayout();
                long end = segments.startByte(segments.segments() - 1) + segmentBytes;
                String what = bytes + " bytes, " + segmentBytes + "-byte segments";
                assertTrue(end <= bytes, what + ": the last segment ends inside the device");
                assertTrue(bytes - end < segmentBytes + 2L * BlockDevice.BLOCK_SIZE
                        + 2 * segmentBytes / BlockDevice.BLOCK_SIZE * 12, what + ": room left for no more segments");
                CheckpointAreas areas = layout.areas();
                assertEquals(areas.start(1) + layout.areaBlocks(), segments.firstByte() / BlockDevice.BLOCK_SIZE);
                long fullCheckpoint = (long) layout.segments() * CompactCheckpointHeader.SEGMENT_BYTES
                        + (long) layout.segments() * (segmentBytes / BlockDevice.BLOCK_SIZE) * CompactCheckpointHeader.ENTRY_BYTES
                        + CompactDeviceLayout.fileTableBudget(blocks);
                assertTrue(areas.bodyCapacityBytes() >= fullCheckpoint, what);
            }
        }
        // 2 TiB of 16 MiB segments: the areas take a fraction of a percent.
        CompactDeviceLayout large = CompactDeviceLayout.forDevice((2L << 40) / BlockDevice.BLOCK_SIZE, 16 << 20);
        assertTrue(large.areaBlocks() * 2.0 / large.deviceBlocks() < 0.01, large.toString());
        assertThrows(IllegalArgumentException.class, () -> CompactDeviceLayout.forDevice(100, 16 << 20));
        // 8 TiB: used up to the 4 TiB a space's record addresses reach.
        CompactDeviceLayout huge = CompactDeviceLayout.forDevice((8L << 40) / BlockDevice.BLOCK_SIZE, 16 << 20);
        SegmentLayout reach = huge.segmentLayout();
        long end = reach.startByte(reach.segments() - 1) + (16 << 20);
        assertTrue(end <= 4L << 40 && end > (4L << 40) - (64L << 20), "ends at " + end);
    }

    @Test
    void itsSuperblockIsNotThePerChunkEnginesAndThatOneIsRecognised() throws Exception {
        CompactDeviceLayout layout = CompactDeviceLayout.forDevice((64L << 20) / BlockDevice.BLOCK_SIZE, 1 << 20);
        CompactSuperblock superblock = new CompactSuperblock(UUID.randomUUID(), 1, 3, layout, 1L << 36);
        assertEquals(superblock, CompactSuperblock.decode(superblock.encode(), "dev"));
        assertTrue(!CompactSuperblock.isPerChunkEngineFormat(superblock.encode()));

        var old = PerChunkSuperblock.block(UUID.randomUUID(), (64L << 20) / BlockDevice.BLOCK_SIZE);
        assertTrue(CompactSuperblock.isPerChunkEngineFormat(old));
        String refused = assertThrows(CheckpointFormatException.class, () -> CompactSuperblock.decode(old, "dev"))
                .getMessage();
        assertTrue(refused.contains("per-chunk engine"), refused);

        var torn = superblock.encode();
        torn.put(50, (byte) 1);
        assertTrue(assertThrows(CheckpointFormatException.class, () -> CompactSuperblock.decode(torn, "dev"))
                .getMessage().contains("checksum"));
        var badSpace = new CompactSuperblock(UUID.randomUUID(), 3, 3, layout, 1L << 36).encode();
        assertTrue(assertThrows(CheckpointFormatException.class, () -> CompactSuperblock.decode(badSpace, "dev"))
                .getMessage().contains("space 3 of 3"));
        var impossible = superblock.encode().order(ByteOrder.LITTLE_ENDIAN);
        impossible.putInt(60, Integer.MAX_VALUE); // more segments than the device holds
        impossible.putInt(72, crcOf(impossible, 72));
        assertTrue(assertThrows(CheckpointFormatException.class, () -> CompactSuperblock.decode(impossible, "dev"))
                .getMessage().contains("impossible"));
    }

    /** A superblock written before sequences were reserved is still read: its limit is unknown (0). */
    @Test
    void aVersion3SuperblockIsReadWithoutAReservation() throws Exception {
        CompactDeviceLayout layout = CompactDeviceLayout.forDevice((64L << 20) / BlockDevice.BLOCK_SIZE, 1 << 20);
        CompactSuperblock today = new CompactSuperblock(UUID.randomUUID(), 0, 1, layout, 1L << 36);
        var version3 = today.encode().order(ByteOrder.LITTLE_ENDIAN);
        version3.putInt(8, 3).putLong(64, 0).putInt(72, 0);
        version3.putInt(64, crcOf(version3, 64));
        assertEquals(today.reserving(0), CompactSuperblock.decode(version3, "dev"));
        assertTrue(CompactSuperblock.isCompactFormat(version3));
    }

    private static int crcOf(java.nio.ByteBuffer block, int crcAt) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(block.duplicate().position(0).limit(crcAt));
        return (int) crc.getValue();
    }
}

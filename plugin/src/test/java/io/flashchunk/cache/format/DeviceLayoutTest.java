package io.flashchunk.cache.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.space.DeviceSet;
import io.flashchunk.cache.upgrade.PerChunkEngine;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.PerChunkSuperblock;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
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
    }

    /**
     * Sectors grow with the device so that a record address reaches every segment it holds: 64 bytes
     * up to 4 TiB (a device of exactly 4 TiB too: its last segment ends before they stop), then the
     * smallest power of two that reaches, up to 4096 bytes and 256 TiB; past that the device is used
     * up to 256 TiB. Each device's last segment ends within a segment and its areas' share of the
     * end, and an address in it names its last sector.
     */
    @Test
    void aDeviceOfAnySizeUpTo256TiBIsUsedWhole() {
        long tib = 1L << 40;
        long[] sizes = {2 * tib, 4 * tib - (1 << 20), 4 * tib, 4 * tib + (64 << 20), 7_680_000_000_000L, 8 * tib,
            15_360_000_000_000L, 61_440_000_000_000L, 200 * tib, 256 * tib - (1 << 20), 300 * tib};
        int[] sectors = {64, 64, 64, 128, 128, 128, 256, 1024, 4096, 4096, 4096};
        for (int i = 0; i < sizes.length; i++) {
            long blocks = sizes[i] / BlockDevice.BLOCK_SIZE;
            DeviceLayout layout = DeviceLayout.forDevice(blocks, 16 << 20);
            String what = sizes[i] + " bytes: " + layout;
            assertEquals(sectors[i], layout.sectorBytes(), what);
            SegmentLayout segments = layout.segmentLayout();
            assertEquals(sectors[i], segments.sectorBytes(), what);
            long usable = Math.min(sizes[i], 256 * tib - 4096);
            long end = segments.startByte(segments.segments() - 1) + (16 << 20);
            long areasPerSegment = 2L * (16 << 20) / BlockDevice.BLOCK_SIZE * CheckpointHeader.ENTRY_BYTES;
            assertTrue(end <= usable && usable - end < (16 << 20) + areasPerSegment + 3 * BlockDevice.BLOCK_SIZE,
                    what + " ends at " + end);
            assertEquals(Math.min(blocks, RecordAddress.MAX_SECTOR * sectors[i] / BlockDevice.BLOCK_SIZE),
                    layout.addressedBlocks(), what);
            assertEquals(sizes[i] > 256 * tib, layout.cutShort(), what);
            int last = segments.segments() - 1;
            int lastSector = (16 << 20) / sectors[i] - 1;
            long address = segments.address(63, last, lastSector);
            assertEquals(63, RecordAddress.space(address));
            assertEquals(last, segments.index(address), what);
            assertEquals(lastSector, segments.sectorInSegment(address), what);
            assertEquals(end - sectors[i], segments.byteOffset(address), what);
            assertTrue(segments.contains(address), what);
        }
    }

    /**
     * A 7.68 TB device an earlier release laid out used its first 4 TiB with 64-byte sectors: that
     * layout is not today's, but it is the one expected of the device (recovered warm); any other is
     * refused with the reason.
     */
    @Test
    void aLargeDeviceLaidOutByAnEarlierReleaseIsKept() {
        long blocks = 7_680_000_000_000L / BlockDevice.BLOCK_SIZE;
        // 1.0.0's DeviceLayout.forDevice (af4a0c1) for this device and 16 MiB segments, as it printed it.
        DeviceLayout earlier = new DeviceLayout(blocks, 16 << 20, 3_131_975, 260_614, 64);
        DeviceLayout today = DeviceLayout.forDevice(blocks, 16 << 20);
        assertEquals(128, today.sectorBytes());
        assertTrue(today.segments() > 1.7 * earlier.segments(), today + " against " + earlier);
        assertTrue(earlier.cutShort() && !today.cutShort());
        assertEquals(earlier, DeviceLayout.expectedFor(earlier, blocks, 16 << 20));
        assertEquals(today, DeviceLayout.expectedFor(today, blocks, 16 << 20));
        Superblock found = new Superblock(UUID.randomUUID(), 0, 1, earlier, 1L << 36);
        assertNull(whyFormatted(found, blocks));
        // Any other layout of the device is today's to check against, and refused with the reason.
        DeviceLayout other = new DeviceLayout(blocks, 16 << 20, earlier.areaBlocks(), earlier.segments() - 1, 64);
        assertEquals(today, DeviceLayout.expectedFor(other, blocks, 16 << 20));
        String mismatch = whyFormatted(new Superblock(UUID.randomUUID(), 0, 1, other, 1L << 36), blocks);
        assertTrue(mismatch.contains("/dev/nvme1n1 was laid out as") && mismatch.contains("no release lays out"), mismatch);
        String resized = whyFormatted(found, blocks / 2);
        assertTrue(resized.contains("capacity changed"), resized);

        // Exactly 4 TiB (capacity: 4TiB): an earlier release's layout is today's, so it recovers warm.
        long four = 1L << 30;
        DeviceLayout fourEarlier = new DeviceLayout(four, 16 << 20, 3_131_975, 260_614, 64);
        Superblock fourFound = new Superblock(UUID.randomUUID(), 0, 1, fourEarlier, 1L << 36);
        assertEquals(4, fourFound.encode().order(ByteOrder.LITTLE_ENDIAN).getInt(8));
        assertNull(whyFormatted(fourFound, four));
    }

    /**
     * A device of up to 4 TiB keeps the version 4 superblock (64-byte sectors), which earlier releases
     * read; a larger one's is version 5 and names its sectors. Both come back as written.
     */
    @Test
    void aSuperblockNamesItsSectorsOnlyWhenTheyAreNot64Bytes() throws Exception {
        DeviceLayout small = DeviceLayout.forDevice((64L << 20) / BlockDevice.BLOCK_SIZE, 1 << 20);
        Superblock four = new Superblock(UUID.randomUUID(), 0, 2, small, 1L << 36);
        assertEquals(4, four.encode().order(ByteOrder.LITTLE_ENDIAN).getInt(8));
        assertEquals(four, Superblock.decode(four.encode(), "dev"));

        DeviceLayout large = DeviceLayout.forDevice(15_360_000_000_000L / BlockDevice.BLOCK_SIZE, 16 << 20);
        Superblock five = new Superblock(UUID.randomUUID(), 1, 2, large, 1L << 36);
        var block = five.encode().order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(5, block.getInt(8));
        assertEquals(256, block.getInt(72));
        Superblock read = Superblock.decode(block, "dev");
        assertEquals(five, read);
        assertEquals(256, read.layout().sectorBytes());

        // Any other sector size than the one named is another layout, or an impossible one.
        block.putInt(72, 128).putInt(76, crcOf(block, 76));
        assertTrue(assertThrows(CheckpointFormatException.class, () -> Superblock.decode(block, "dev"))
                .getMessage().contains("impossible"), "128-byte sectors do not reach 15.36 TB");
        block.putInt(72, 512).putInt(76, crcOf(block, 76));
        assertEquals(512, Superblock.decode(block, "dev").layout().sectorBytes());
        String mismatch = whyFormatted(Superblock.decode(block, "dev"), large.deviceBlocks());
        assertTrue(mismatch != null && mismatch.contains("sectorBytes=512"), mismatch);
        block.putInt(72, 64).putInt(76, crcOf(block, 76));
        assertTrue(assertThrows(CheckpointFormatException.class, () -> Superblock.decode(block, "dev"))
                .getMessage().contains("version 5"), "64-byte sectors are version 4's");
        block.putInt(72, 100).putInt(76, crcOf(block, 76));
        assertTrue(assertThrows(CheckpointFormatException.class, () -> Superblock.decode(block, "dev"))
                .getMessage().contains("impossible"));
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

    /**
     * The start stamp comes back as written; a release before it leaves zeros there, read as none
     * recorded (run 0, settled); a stamp changed fails its own checksum and reads as that release's,
     * never as another run or start.
     */
    @Test
    void theStartStampRoundTripsAndAnEarlierReleasesZerosReadAsNone() throws Exception {
        DeviceLayout layout = DeviceLayout.forDevice((64L << 20) / BlockDevice.BLOCK_SIZE, 1 << 20);
        StartStamp stamp = new StartStamp(-42, 7, 5, 1_795_000_000_000L, false);
        Superblock written = new Superblock(UUID.randomUUID(), 1, 2, layout, 5L << 36, stamp);
        assertEquals(written, Superblock.decode(written.encode(), "dev"));
        assertEquals(stamp, Superblock.decode(written.encode(), "dev").stamp());
        assertEquals(written.asSettled(), Superblock.decode(written.asSettled().encode(), "dev"));
        assertTrue(Superblock.decode(written.asSettled().encode(), "dev").stamp().settled());

        var earlier = written.encode().order(ByteOrder.LITTLE_ENDIAN);
        for (int at = 96; at < 136; at++) {
            earlier.put(at, (byte) 0);
        }
        Superblock read = Superblock.decode(earlier, "dev");
        assertEquals(new Superblock(written.instance(), 1, 2, layout, 5L << 36), read);
        assertEquals(StartStamp.NONE, read.stamp());

        for (int at : new int[] {97, 105, 113, 121, 128}) {
            var flipped = written.encode().order(ByteOrder.LITTLE_ENDIAN);
            flipped.put(at, (byte) (flipped.get(at) ^ 1));
            assertEquals(StartStamp.NONE, Superblock.decode(flipped, "dev").stamp(),
                    "a stamp whose byte " + at + " changed is none recorded");
        }
    }

    private static int crcOf(java.nio.ByteBuffer block, int crcAt) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(block.duplicate().position(0).limit(crcAt));
        return (int) crc.getValue();
    }

    /** Why start would format a device of {@code blocks} holding {@code found} (its own segment size), or null. */
    private static String whyFormatted(Superblock found, long blocks) {
        List<String> none = new ArrayList<>();
        none.add(null);
        // As one device of a run of this release holds it (a release before run ids' is kept only in its own place).
        Superblock ofARun = new Superblock(found.instance(), 0, 1, found.layout(), found.sequenceLimit(),
                new StartStamp(7, 8, 0, 0, true));
        return DeviceSet.decide(List.of("/dev/nvme1n1"), List.of(blocks), List.of(ofARun), none,
                found.layout().segmentBytes()).reason(0);
    }
}

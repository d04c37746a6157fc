package io.flashchunk.cache.format;

import io.flashchunk.device.BlockDevice;
import java.util.Objects;

/**
 * Where things are on a device of the engine (4096-byte blocks):
 *
 * <pre>
 * 0                          superblock ({@link Superblock})
 * 1 .. areaBlocks            checkpoint area A: a header block, then the body
 * 1+areaBlocks .. 2*area     checkpoint area B
 * 1+2*areaBlocks ..          segments, each segmentBytes, as many as fit
 * </pre>
 *
 * Each area holds a checkpoint naming every segment with every record a chunk of 4 KiB or more
 * (8 bytes a segment and 12 a chunk), plus a file table of up to {@link #fileTableBudget} bytes.
 * Chunks under 4 KiB pack more records than that into a segment; a checkpoint then leaves out the
 * entries past its area's room (counted, never misread).
 *
 * <p>Records align to the space's sector ({@link RecordAddress}): the smallest power of two from
 * 64 bytes whose addresses reach every segment the device holds (64 bytes up to 4 TiB), so a drive
 * of any size is used whole up to 256 TiB (4096-byte sectors); a larger one is used up to there
 * ({@link #cutShort}).
 */
public final class DeviceLayout {
    private static final int BLOCK = BlockDevice.BLOCK_SIZE;
    private final long deviceBlocks;
    private final int segmentBytes;
    private final long areaBlocks;
    private final int segments;
    private final int sectorBytes;

    public DeviceLayout(long deviceBlocks, int segmentBytes, long areaBlocks, int segments, int sectorBytes) {
        if (!RecordAddress.isSectorSize(sectorBytes)) {
            throw new IllegalArgumentException("a sector of " + sectorBytes + " bytes is not a power of two from "
                    + RecordAddress.MIN_SECTOR_BYTES + " to " + RecordAddress.MAX_SECTOR_BYTES);
        }
        long used = 1 + 2 * areaBlocks + (long) segments * (segmentBytes / BLOCK);
        if (segmentBytes < BLOCK || segmentBytes % BLOCK != 0 || segments < 1 || areaBlocks < 2
                || used > deviceBlocks) {
            throw new IllegalArgumentException(segments + " segments of " + segmentBytes + " bytes and areas of "
                    + areaBlocks + " blocks do not fit a device of " + deviceBlocks + " blocks");
        }
        if (used > addressableBlocks(sectorBytes)) {
            throw new IllegalArgumentException(segments + " segments of " + segmentBytes + " bytes and areas of "
                    + areaBlocks + " blocks reach past what " + sectorBytes + "-byte sectors address");
        }
        this.deviceBlocks = deviceBlocks;
        this.segmentBytes = segmentBytes;
        this.areaBlocks = areaBlocks;
        this.segments = segments;
        this.sectorBytes = sectorBytes;
    }

    /** Blocks a {@link RecordAddress} reaches in a space of {@code sectorBytes}-byte sectors. */
    static long addressableBlocks(int sectorBytes) {
        return RecordAddress.MAX_SECTOR * sectorBytes / BLOCK;
    }

    public long deviceBlocks() {
        return deviceBlocks;
    }

    public int segmentBytes() {
        return segmentBytes;
    }

    public long areaBlocks() {
        return areaBlocks;
    }

    public int segments() {
        return segments;
    }

    /** The record alignment of this device's space ({@link RecordAddress}). */
    public int sectorBytes() {
        return sectorBytes;
    }

    /**
     * The device's blocks its space can address: all of them up to 256 TiB (what its superblock,
     * checkpoint areas and segments need of them, up to just under 4 TiB with 64-byte sectors).
     */
    public long addressedBlocks() {
        return Math.min(deviceBlocks, addressableBlocks(sectorBytes));
    }

    /**
     * Whether record addresses cut this device short: more segments would fit on it than its
     * sectors reach (a device over 256 TiB, or a layout an earlier release made).
     */
    public boolean cutShort() {
        return segments < fitting(deviceBlocks, segmentBytes, fileTableBudget(deviceBlocks));
    }

    /** The layout with the most segments of {@code segmentBytes} on a device of {@code deviceBlocks}. */
    public static DeviceLayout forDevice(long deviceBlocks, int segmentBytes) {
        if (segmentBytes < BLOCK || segmentBytes % BLOCK != 0) {
            throw new IllegalArgumentException("segment size " + segmentBytes + " is not a multiple of " + BLOCK);
        }
        // The smallest sector whose addresses reach every segment the device holds (so a device of
        // exactly 4 TiB keeps 64-byte sectors: its last segment ends before they stop), or the largest.
        long whole = fitting(deviceBlocks, segmentBytes, fileTableBudget(deviceBlocks));
        int sectorBytes = RecordAddress.MIN_SECTOR_BYTES;
        DeviceLayout layout = withSectors(deviceBlocks, segmentBytes, sectorBytes);
        while (layout != null && layout.segments < whole && sectorBytes < RecordAddress.MAX_SECTOR_BYTES) {
            sectorBytes *= 2;
            layout = withSectors(deviceBlocks, segmentBytes, sectorBytes);
        }
        if (layout == null) {
            throw new IllegalArgumentException("a device of " + deviceBlocks + " blocks has no room for one "
                    + segmentBytes + "-byte segment besides its superblock and checkpoint areas");
        }
        return layout;
    }

    /** The most segments that fit where sectors of {@code sectorBytes} reach; null when not one does. */
    private static DeviceLayout withSectors(long deviceBlocks, int segmentBytes, int sectorBytes) {
        long budget = fileTableBudget(deviceBlocks);
        long n = fitting(Math.min(deviceBlocks, addressableBlocks(sectorBytes)), segmentBytes, budget);
        if (n < 1) {
            return null;
        }
        long perSegment = CheckpointHeader.SEGMENT_BYTES + segmentBytes / BLOCK * CheckpointHeader.ENTRY_BYTES;
        return new DeviceLayout(deviceBlocks, segmentBytes, areaBlocks(n, perSegment, budget), (int) n, sectorBytes);
    }

    /**
     * The layout a device of {@code deviceBlocks} must have to be recovered, its superblock holding
     * {@code found}: {@link #forDevice}'s, or the one releases before 2026-11-28 gave a device over
     * 4 TiB (64-byte sectors, used up to just under 4 TiB), kept so that an upgrade recovers such a
     * device warm. Start and the checkpoint tool judge a device by this one rule.
     */
    public static DeviceLayout expectedFor(DeviceLayout found, long deviceBlocks, int segmentBytes) {
        DeviceLayout earlier = withSectors(deviceBlocks, segmentBytes, RecordAddress.MIN_SECTOR_BYTES);
        return found.equals(earlier) ? earlier : forDevice(deviceBlocks, segmentBytes);
    }

    /** The most segments of {@code segmentBytes} that fit in {@code usable} blocks beside the superblock and areas. */
    private static long fitting(long usable, int segmentBytes, long budget) {
        long segmentBlocks = segmentBytes / BLOCK;
        long perSegment = CheckpointHeader.SEGMENT_BYTES + segmentBlocks * CheckpointHeader.ENTRY_BYTES;
        // Largest n with 1 + 2 * area(n) + n * segmentBlocks <= usable: estimated without the
        // rounding of the areas to whole blocks, then stepped down to fit.
        double perSegmentBlocks = segmentBlocks + 2.0 * perSegment / BLOCK;
        long n = (long) Math.max(0, Math.min(Integer.MAX_VALUE, (usable - 3 - 2.0 * budget / BLOCK) / perSegmentBlocks));
        while (n > 0 && 1 + 2 * areaBlocks(n, perSegment, budget) + n * segmentBlocks > usable) {
            n--;
        }
        return n;
    }

    /** Room for the file table in each area: 1/256 of the device, between 64 KiB and 16 MiB. */
    static long fileTableBudget(long deviceBlocks) {
        return Math.max(64 << 10, Math.min(16 << 20, deviceBlocks * BLOCK / 256));
    }

    private static long areaBlocks(long segments, long perSegment, long budget) {
        return 1 + (segments * perSegment + budget + BLOCK - 1) / BLOCK;
    }

    public CheckpointAreas areas() {
        return new CheckpointAreas(1, 1 + areaBlocks, (areaBlocks - 1) * BLOCK);
    }

    public SegmentLayout segmentLayout() {
        return new SegmentLayout((1 + 2 * areaBlocks) * BLOCK, segmentBytes, segments, sectorBytes);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof DeviceLayout)) {
            return false;
        }
        DeviceLayout other = (DeviceLayout) o;
        return deviceBlocks == other.deviceBlocks
                && segmentBytes == other.segmentBytes
                && areaBlocks == other.areaBlocks
                && segments == other.segments
                && sectorBytes == other.sectorBytes;
    }

    @Override
    public int hashCode() {
        return Objects.hash(deviceBlocks, segmentBytes, areaBlocks, segments, sectorBytes);
    }

    @Override
    public String toString() {
        return "DeviceLayout[deviceBlocks=" + deviceBlocks + ", segmentBytes=" + segmentBytes
                + ", areaBlocks=" + areaBlocks + ", segments=" + segments + ", sectorBytes=" + sectorBytes + "]";
    }
}

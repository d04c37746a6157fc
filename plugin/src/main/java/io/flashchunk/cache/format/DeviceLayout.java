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
 * <p>Records align to the space's sector ({@link RecordAddress}): 64 bytes on a device of up to
 * 4 TiB, else the smallest power of two that lets a record address reach the whole device, so a
 * drive of any size is used whole up to 256 TiB (4096-byte sectors); a larger one is used up to
 * there ({@link #addressedBlocks}).
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

    /** The sector of a device of {@code deviceBlocks}: the smallest that addresses all of it, or the largest. */
    static int sectorBytesFor(long deviceBlocks) {
        int sector = RecordAddress.MIN_SECTOR_BYTES;
        while (sector < RecordAddress.MAX_SECTOR_BYTES && addressableBlocks(sector) < deviceBlocks) {
            sector *= 2;
        }
        return sector;
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

    /** The device's blocks its space can address: all of them up to 256 TiB. */
    public long addressedBlocks() {
        return Math.min(deviceBlocks, addressableBlocks(sectorBytes));
    }

    /** The layout with the most segments of {@code segmentBytes} on a device of {@code deviceBlocks}. */
    public static DeviceLayout forDevice(long deviceBlocks, int segmentBytes) {
        if (segmentBytes < BLOCK || segmentBytes % BLOCK != 0) {
            throw new IllegalArgumentException("segment size " + segmentBytes + " is not a multiple of " + BLOCK);
        }
        long segmentBlocks = segmentBytes / BLOCK;
        long budget = fileTableBudget(deviceBlocks);
        int sectorBytes = sectorBytesFor(deviceBlocks);
        long usable = Math.min(deviceBlocks, addressableBlocks(sectorBytes));
        long perSegment = CheckpointHeader.SEGMENT_BYTES + segmentBlocks * CheckpointHeader.ENTRY_BYTES;
        // Largest n with 1 + 2 * area(n) + n * segmentBlocks <= deviceBlocks: estimated without the
        // rounding of the areas to whole blocks, then stepped down to fit.
        double perSegmentBlocks = segmentBlocks + 2.0 * perSegment / BLOCK;
        long n = (long) Math.max(0, Math.min(Integer.MAX_VALUE, (usable - 3 - 2.0 * budget / BLOCK) / perSegmentBlocks));
        while (n > 0 && 1 + 2 * areaBlocks(n, perSegment, budget) + n * segmentBlocks > usable) {
            n--;
        }
        if (n < 1) {
            throw new IllegalArgumentException("a device of " + deviceBlocks + " blocks has no room for one "
                    + segmentBytes + "-byte segment besides its superblock and checkpoint areas");
        }
        return new DeviceLayout(deviceBlocks, segmentBytes, areaBlocks(n, perSegment, budget), (int) n, sectorBytes);
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

package io.flashchunk.cache.format;

import io.flashchunk.device.BlockDevice;
import java.util.Objects;

/**
 * Where one address space's segments are on its device: {@code segments} segments of
 * {@code segmentBytes} each, from byte {@code firstByte} on (after the superblock and checkpoint
 * areas), and how a {@link RecordAddress} in the space names a segment and a place in it: in
 * sectors of {@code sectorBytes}, the space's record alignment ({@link DeviceLayout} chooses it).
 */
public final class SegmentLayout {
    private final long firstByte;
    private final int segmentBytes;
    private final int segments;
    private final int sectorBytes;

    public SegmentLayout(long firstByte, int segmentBytes, int segments, int sectorBytes) {
        if (!RecordAddress.isSectorSize(sectorBytes)) {
            throw new IllegalArgumentException("a sector of " + sectorBytes + " bytes is not a power of two from "
                    + RecordAddress.MIN_SECTOR_BYTES + " to " + RecordAddress.MAX_SECTOR_BYTES);
        }
        if (firstByte < BlockDevice.BLOCK_SIZE || firstByte % BlockDevice.BLOCK_SIZE != 0) {
            throw new IllegalArgumentException("segments must start at a block after the first, not byte " + firstByte);
        }
        if (segmentBytes < BlockDevice.BLOCK_SIZE || segmentBytes % BlockDevice.BLOCK_SIZE != 0) {
            throw new IllegalArgumentException("segment size " + segmentBytes + " is not a multiple of "
                    + BlockDevice.BLOCK_SIZE);
        }
        if (segments < 1 || (firstByte + (long) segments * segmentBytes) / sectorBytes > RecordAddress.MAX_SECTOR) {
            throw new IllegalArgumentException(segments + " segments of " + segmentBytes + " bytes do not fit "
                    + "an address space of " + sectorBytes + "-byte sectors");
        }
        this.firstByte = firstByte;
        this.segmentBytes = segmentBytes;
        this.segments = segments;
        this.sectorBytes = sectorBytes;
    }

    public long firstByte() {
        return firstByte;
    }

    public int segmentBytes() {
        return segmentBytes;
    }

    public int segments() {
        return segments;
    }

    /** The space's record alignment: records start, and addresses count, in units of this many bytes. */
    public int sectorBytes() {
        return sectorBytes;
    }

    /**
     * The layout for a device of {@code capacityBytes} whose segments start at {@code firstByte},
     * with sectors of {@code sectorBytes}.
     */
    public static SegmentLayout of(long firstByte, int segmentBytes, long capacityBytes, int sectorBytes) {
        long segments = (capacityBytes - firstByte) / segmentBytes;
        if (segments < 1) {
            throw new IllegalArgumentException("a device of " + capacityBytes + " bytes has no room for a "
                    + segmentBytes + "-byte segment after byte " + firstByte);
        }
        return new SegmentLayout(firstByte, segmentBytes, (int) Math.min(Integer.MAX_VALUE, segments), sectorBytes);
    }

    /** The first block of segment {@code index}. */
    public long lba(int index) {
        return startByte(index) / BlockDevice.BLOCK_SIZE;
    }

    public long startByte(int index) {
        return firstByte + (long) index * segmentBytes;
    }

    /** The address of the record {@code sector} sectors into segment {@code index} of {@code space}. */
    public long address(int space, int index, int sector) {
        return RecordAddress.of(space, startByte(index) / sectorBytes + sector);
    }

    /** The first byte, on its device, of the record an address in this space points to. */
    public long byteOffset(long address) {
        return RecordAddress.sector(address) * sectorBytes;
    }

    /** The segment (index within the space) an address in this space points into. */
    public int index(long address) {
        return (int) ((byteOffset(address) - firstByte) / segmentBytes);
    }

    /** Sectors from the start of its segment to the record an address points to. */
    public int sectorInSegment(long address) {
        return (int) ((byteOffset(address) - firstByte) % segmentBytes / sectorBytes);
    }

    /** Whether an address points into one of this layout's segments. */
    public boolean contains(long address) {
        long at = byteOffset(address);
        return at >= firstByte && at < firstByte + (long) segments * segmentBytes;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof SegmentLayout)) {
            return false;
        }
        SegmentLayout other = (SegmentLayout) o;
        return firstByte == other.firstByte
                && segmentBytes == other.segmentBytes
                && segments == other.segments
                && sectorBytes == other.sectorBytes;
    }

    @Override
    public int hashCode() {
        return Objects.hash(firstByte, segmentBytes, segments, sectorBytes);
    }

    @Override
    public String toString() {
        return "SegmentLayout[firstByte=" + firstByte + ", segmentBytes=" + segmentBytes
                + ", segments=" + segments + ", sectorBytes=" + sectorBytes + "]";
    }
}

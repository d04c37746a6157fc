package io.flashchunk.cache.format;

import io.flashchunk.device.BlockDevice;
import java.util.Objects;

/**
 * Where one address space's segments are on its device: {@code segments} segments of
 * {@code segmentBytes} each, from byte {@code firstByte} on (after the superblock and checkpoint
 * areas), and how a {@link RecordAddress} in the space names a segment and a place in it.
 */
public final class SegmentLayout {
    private final long firstByte;
    private final int segmentBytes;
    private final int segments;

    public SegmentLayout(long firstByte, int segmentBytes, int segments) {
        if (firstByte < BlockDevice.BLOCK_SIZE || firstByte % BlockDevice.BLOCK_SIZE != 0) {
            throw new IllegalArgumentException("segments must start at a block after the first, not byte " + firstByte);
        }
        if (segmentBytes < BlockDevice.BLOCK_SIZE || segmentBytes % BlockDevice.BLOCK_SIZE != 0) {
            throw new IllegalArgumentException("segment size " + segmentBytes + " is not a multiple of "
                    + BlockDevice.BLOCK_SIZE);
        }
        if (segments < 1 || (firstByte + (long) segments * segmentBytes) / RecordAddress.SECTOR_BYTES
                > RecordAddress.MAX_SECTOR) {
            throw new IllegalArgumentException(segments + " segments of " + segmentBytes + " bytes do not fit "
                    + "an address space");
        }
        this.firstByte = firstByte;
        this.segmentBytes = segmentBytes;
        this.segments = segments;
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

    /** The layout for a device of {@code capacityBytes} whose segments start at {@code firstByte}. */
    public static SegmentLayout of(long firstByte, int segmentBytes, long capacityBytes) {
        long segments = (capacityBytes - firstByte) / segmentBytes;
        if (segments < 1) {
            throw new IllegalArgumentException("a device of " + capacityBytes + " bytes has no room for a "
                    + segmentBytes + "-byte segment after byte " + firstByte);
        }
        return new SegmentLayout(firstByte, segmentBytes, (int) Math.min(Integer.MAX_VALUE, segments));
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
        return RecordAddress.of(space, startByte(index) / RecordAddress.SECTOR_BYTES + sector);
    }

    /** The segment (index within the space) an address in this space points into. */
    public int index(long address) {
        return (int) ((RecordAddress.byteOffset(address) - firstByte) / segmentBytes);
    }

    /** Sectors from the start of its segment to the record an address points to. */
    public int sectorInSegment(long address) {
        return (int) ((RecordAddress.byteOffset(address) - firstByte) % segmentBytes / RecordAddress.SECTOR_BYTES);
    }

    /** Whether an address points into one of this layout's segments. */
    public boolean contains(long address) {
        long at = RecordAddress.byteOffset(address);
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
                && segments == other.segments;
    }

    @Override
    public int hashCode() {
        return Objects.hash(firstByte, segmentBytes, segments);
    }

    @Override
    public String toString() {
        return "SegmentLayout[firstByte=" + firstByte + ", segmentBytes=" + segmentBytes
                + ", segments=" + segments + "]";
    }
}

package io.flashchunk.cache.format;

import io.flashchunk.device.BlockDevice;

/**
 * Where one address space's segments are on its device: {@code segments} segments of
 * {@code segmentBytes} each, from byte {@code firstByte} on (after the superblock and checkpoint
 * areas), and how a {@link RecordAddress} in the space names a segment and a place in it.
 */
public record SegmentLayout(long firstByte, int segmentBytes, int segments) {
    public SegmentLayout {
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
}

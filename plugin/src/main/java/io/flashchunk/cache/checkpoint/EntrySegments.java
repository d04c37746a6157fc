package io.flashchunk.cache.checkpoint;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A checkpoint's entries (20 bytes each) in heap segments of a fixed number of entries, so a body
 * of any size (more than a 2 GiB buffer holds) is kept and read by entry index. Filled once, in
 * order, by {@link #append}; read-only after.
 */
final class EntrySegments {
    /** Entries per segment by default: 20 MiB segments. */
    static final int DEFAULT_SEGMENT_ENTRIES = 1 << 20;

    private final ByteBuffer[] segments;
    private final int segmentShift;
    private final int segmentMask;
    private final long capacityBytes;
    private long appendedBytes;

    /** Room for exactly {@code entries} entries, in segments of {@code segmentEntries} (a power of two). */
    EntrySegments(long entries, int segmentEntries) {
        if (Integer.bitCount(segmentEntries) != 1) {
            throw new IllegalArgumentException("segment entries must be a power of two, got " + segmentEntries);
        }
        this.segmentShift = Integer.numberOfTrailingZeros(segmentEntries);
        this.segmentMask = segmentEntries - 1;
        this.capacityBytes = entries * CheckpointFormat.ENTRY_BYTES;
        long count = (entries + segmentEntries - 1) >>> segmentShift;
        this.segments = new ByteBuffer[Math.toIntExact(count)];
        for (int i = 0; i < segments.length; i++) {
            long inSegment = Math.min(segmentEntries, entries - ((long) i << segmentShift));
            segments[i] = ByteBuffer.allocate((int) inSegment * CheckpointFormat.ENTRY_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    /** Copies the next bytes of the entries (any split: an entry may span two calls). */
    void append(ByteBuffer bytes) {
        if (appendedBytes + bytes.remaining() > capacityBytes) {
            throw new IllegalStateException("more entry bytes than " + capacityBytes);
        }
        while (bytes.hasRemaining()) {
            long entry = appendedBytes / CheckpointFormat.ENTRY_BYTES;
            ByteBuffer segment = segments[(int) (entry >>> segmentShift)];
            int offset = (int) (appendedBytes - ((entry >>> segmentShift) << segmentShift) * CheckpointFormat.ENTRY_BYTES);
            int n = Math.min(bytes.remaining(), segment.capacity() - offset);
            segment.put(offset, bytes, bytes.position(), n);
            bytes.position(bytes.position() + n);
            appendedBytes += n;
        }
    }

    /** Whether every entry's bytes have been appended. */
    boolean complete() {
        return appendedBytes == capacityBytes;
    }

    int getInt(long entry, int field) {
        return segment(entry).getInt(offset(entry) + field);
    }

    long getLong(long entry, int field) {
        return segment(entry).getLong(offset(entry) + field);
    }

    private ByteBuffer segment(long entry) {
        return segments[(int) (entry >>> segmentShift)];
    }

    private int offset(long entry) {
        return (int) (entry & segmentMask) * CheckpointFormat.ENTRY_BYTES;
    }
}

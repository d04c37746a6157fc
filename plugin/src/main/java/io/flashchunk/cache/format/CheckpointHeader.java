package io.flashchunk.cache.format;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.UUID;

/**
 * Block 0 of a checkpoint area of the engine, written after its body is durable. The body
 * follows in three parts, trusted only through the lengths and the checksum here:
 *
 * <pre>
 * segments   8 bytes per segment of the space: the sequence of the use the checkpoint names, 0 = none
 * files      the file table ({@link io.flashchunk.cache.files.FileTableCodec})
 * entries    12 bytes each: the index bucket (unsigned 32 bits) and the slot (64 bits)
 * </pre>
 *
 * {@code exactCopy}: the index did not change while its slots were copied, so the entries hold no
 * entry twice and recovery puts each back into its own bucket without looking for another copy.
 *
 * The header's magic differs from the removed per-chunk engine's, so neither engine's checkpoint
 * can be read as the other's. Little-endian.
 */
public final class CheckpointHeader {
    public static final long MAGIC = 0x464C4348_43435F31L; // "FLCHCC_1"
    /** 3: with the exact-copy flag (2: without, read as not exact; 1: record addresses in 512-byte units). */
    public static final int VERSION = 3;
    private static final int VERSION_WITHOUT_FLAG = 2;
    public static final int SEGMENT_BYTES = 8;
    public static final int ENTRY_BYTES = 12;
    private static final int CRC_AT = 108;
    /**
     * The largest file table read: it is parsed from one array before its checksum can be known, so a
     * forged length must not allocate gigabytes (64 MiB is over 200,000 files of 300-byte paths).
     */
    public static final long MAX_FILE_TABLE_BYTES = 64 << 20;
    /** Sequences stay far below overflow: a forged one near it would make every later checkpoint unreadable. */
    public static final long MAX_SEQUENCE = 1L << 62;

    private final UUID instance;
    private final int spaceIndex;
    private final long sequence;
    private final long timestampMillis;
    private final int nextFileId;
    private final int fileCount;
    private final long fileTableBytes;
    private final int segments;
    private final int segmentBytes;
    private final long buckets;
    private final long entryCount;
    private final long nextSegmentSequence;
    private final int bodyCrc;
    private final boolean exactCopy;

    public CheckpointHeader(UUID instance, int spaceIndex, long sequence, long timestampMillis, int nextFileId,
                            int fileCount, long fileTableBytes, int segments, int segmentBytes, long buckets,
                            long entryCount, long nextSegmentSequence, int bodyCrc, boolean exactCopy) {
        this.instance = instance;
        this.spaceIndex = spaceIndex;
        this.sequence = sequence;
        this.timestampMillis = timestampMillis;
        this.nextFileId = nextFileId;
        this.fileCount = fileCount;
        this.fileTableBytes = fileTableBytes;
        this.segments = segments;
        this.segmentBytes = segmentBytes;
        this.buckets = buckets;
        this.entryCount = entryCount;
        this.nextSegmentSequence = nextSegmentSequence;
        this.bodyCrc = bodyCrc;
        this.exactCopy = exactCopy;
    }

    public UUID instance() {
        return instance;
    }

    public int spaceIndex() {
        return spaceIndex;
    }

    public long sequence() {
        return sequence;
    }

    public long timestampMillis() {
        return timestampMillis;
    }

    public int nextFileId() {
        return nextFileId;
    }

    public int fileCount() {
        return fileCount;
    }

    public long fileTableBytes() {
        return fileTableBytes;
    }

    public int segments() {
        return segments;
    }

    public int segmentBytes() {
        return segmentBytes;
    }

    public long buckets() {
        return buckets;
    }

    public long entryCount() {
        return entryCount;
    }

    public long nextSegmentSequence() {
        return nextSegmentSequence;
    }

    public int bodyCrc() {
        return bodyCrc;
    }

    public boolean exactCopy() {
        return exactCopy;
    }

    public long segmentsBytes() {
        return (long) segments * SEGMENT_BYTES;
    }

    long entriesBytes() {
        return entryCount * ENTRY_BYTES;
    }

    public long bodyBytes() {
        return segmentsBytes() + fileTableBytes + entriesBytes();
    }

    public ByteBuffer encode() {
        ByteBuffer block = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        block.putLong(0, MAGIC)
                .putInt(8, VERSION)
                .putLong(12, instance.getMostSignificantBits())
                .putLong(20, instance.getLeastSignificantBits())
                .putInt(28, spaceIndex)
                .putLong(32, sequence)
                .putLong(40, timestampMillis)
                .putInt(48, nextFileId)
                .putInt(52, fileCount)
                .putLong(56, fileTableBytes)
                .putInt(64, segments)
                .putInt(68, segmentBytes)
                .putLong(72, buckets)
                .putLong(80, entryCount)
                .putLong(88, nextSegmentSequence)
                .putInt(96, bodyCrc)
                .putInt(100, exactCopy ? 1 : 0)
                .putInt(CRC_AT, CheckpointFormat.crc(block, CRC_AT));
        return block;
    }

    /**
     * Decodes and checks a header block read from {@code where}: magic, version, checksum, and every
     * count within what a body of at most {@code capacityBytes} can hold.
     */
    public static CheckpointHeader decode(ByteBuffer block, long capacityBytes, String where)
            throws CheckpointFormatException {
        ByteBuffer b = block.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (b.getLong(0) != MAGIC) {
            String message = where + ": no compact checkpoint header (magic 0x" + Long.toHexString(b.getLong(0)) + ")";
            throw b.getLong(0) == 0 ? CheckpointFormatException.emptyArea(message) : new CheckpointFormatException(message);
        }
        int version = b.getInt(8);
        if (version != VERSION && version != VERSION_WITHOUT_FLAG) {
            throw new CheckpointFormatException(where + ": compact checkpoint version " + b.getInt(8)
                    + " is not the supported version " + VERSION);
        }
        if (CheckpointFormat.crc(b, CRC_AT) != b.getInt(CRC_AT)) {
            throw new CheckpointFormatException(where + ": checkpoint header checksum mismatch (torn or corrupt)");
        }
        CheckpointHeader h = new CheckpointHeader(new UUID(b.getLong(12), b.getLong(20)), b.getInt(28),
                b.getLong(32), b.getLong(40), b.getInt(48), b.getInt(52), b.getLong(56), b.getInt(64), b.getInt(68),
                b.getLong(72), b.getLong(80), b.getLong(88), b.getInt(96), version == VERSION && b.getInt(100) == 1);
        if (h.sequence() < 1 || h.nextFileId() < 1 || h.nextSegmentSequence() < 1 || h.spaceIndex() < 0) {
            throw new CheckpointFormatException(where + ": checkpoint header has sequence " + h.sequence()
                    + ", next file id " + h.nextFileId() + ", next segment sequence " + h.nextSegmentSequence()
                    + ", space " + h.spaceIndex() + " (each must be positive, the space not negative)");
        }
        // Each part bounded first, so their sum cannot overflow.
        if (h.segments() < 0 || h.fileCount() < 0 || h.fileTableBytes() < 0 || h.fileTableBytes() > capacityBytes
                || h.entryCount() < 0 || h.entryCount() > capacityBytes / ENTRY_BYTES
                || h.bodyBytes() > capacityBytes) {
            throw new CheckpointFormatException(where + ": a body of " + h.segments() + " segments, "
                    + h.fileCount() + " files in " + h.fileTableBytes() + " bytes and " + h.entryCount()
                    + " entries does not fit the area (" + capacityBytes + " bytes)");
        }
        if (h.fileTableBytes() > MAX_FILE_TABLE_BYTES
                || h.fileCount() > h.fileTableBytes() / (CheckpointFormat.FILE_RECORD_FIXED_BYTES + 1)) {
            throw new CheckpointFormatException(where + ": a file table of " + h.fileCount() + " files in "
                    + h.fileTableBytes() + " bytes is more than a checkpoint holds (at most " + MAX_FILE_TABLE_BYTES
                    + " bytes, " + (CheckpointFormat.FILE_RECORD_FIXED_BYTES + 1) + " a file)");
        }
        if (h.sequence() >= MAX_SEQUENCE || h.nextSegmentSequence() >= MAX_SEQUENCE) {
            throw new CheckpointFormatException(where + ": checkpoint sequence " + h.sequence()
                    + " or next segment sequence " + h.nextSegmentSequence() + " is beyond " + MAX_SEQUENCE);
        }
        return h;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof CheckpointHeader)) {
            return false;
        }
        CheckpointHeader other = (CheckpointHeader) o;
        return Objects.equals(instance, other.instance)
                && spaceIndex == other.spaceIndex
                && sequence == other.sequence
                && timestampMillis == other.timestampMillis
                && nextFileId == other.nextFileId
                && fileCount == other.fileCount
                && fileTableBytes == other.fileTableBytes
                && segments == other.segments
                && segmentBytes == other.segmentBytes
                && buckets == other.buckets
                && entryCount == other.entryCount
                && nextSegmentSequence == other.nextSegmentSequence
                && bodyCrc == other.bodyCrc
                && exactCopy == other.exactCopy;
    }

    @Override
    public int hashCode() {
        return Objects.hash(instance, spaceIndex, sequence, timestampMillis, nextFileId, fileCount, fileTableBytes,
                segments, segmentBytes, buckets, entryCount, nextSegmentSequence, bodyCrc, exactCopy);
    }

    @Override
    public String toString() {
        return "CheckpointHeader[instance=" + instance + ", spaceIndex=" + spaceIndex + ", sequence=" + sequence
                + ", timestampMillis=" + timestampMillis + ", nextFileId=" + nextFileId + ", fileCount=" + fileCount
                + ", fileTableBytes=" + fileTableBytes + ", segments=" + segments + ", segmentBytes=" + segmentBytes
                + ", buckets=" + buckets + ", entryCount=" + entryCount + ", nextSegmentSequence=" + nextSegmentSequence
                + ", bodyCrc=" + bodyCrc + ", exactCopy=" + exactCopy + "]";
    }
}

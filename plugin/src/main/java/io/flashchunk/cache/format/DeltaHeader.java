package io.flashchunk.cache.format;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.UUID;

/**
 * The header block of a checkpoint delta: a checkpoint that names what changed since the full
 * checkpoint (its base) in the same area, written after the base's body and after the deltas before
 * it, so that writing it never overwrites a checkpoint recovery may need. Its body, trusted only
 * through the lengths and the checksum here:
 *
 * <pre>
 * changes    20 bytes per segment whose use or written part differs from the base's, in segment
 *            order: the sequence of its use (64 bits; 0 = the segment is named no more), the segment's
 *            index, and the sectors from and to which its records are new (32 bits each): from 0 for
 *            a use the base does not name, from the base's written part for the use of an open
 *            segment the base names in part; to the end of all of them, or the part written of an
 *            open segment
 * forgotten  20 bytes per chunk invalidated since the base: its key (64 bits), and the place in the
 *            order of appends where the next record went when it was invalidated: a segment's use
 *            (64 bits) and a sector of it (32 bits); a record of the key before that place (a lower
 *            use, or the same use at a lower sector) holds the bytes from before
 * ahead      16 bytes per record new in a segment the delta names only in part (an open segment
 *            written ahead): the segment's index and the record's sector (32 bits each), its key (64
 *            bits). Such a segment's summary is written again as it fills, so a power cut can tear
 *            it; the delta keeps its own list.
 * files      the whole file table ({@link io.flashchunk.cache.files.FileTableCodec})
 * </pre>
 *
 * A delta holds no index entries: recovery takes the base's entries into the segments the delta
 * leaves unchanged, reads the chunks of each changed segment from its summary on flash (of one
 * named in part, from the delta's own list), and then
 * takes out each forgotten key left pointing at a record older than its invalidation. Each
 * delta names everything since the base (not since the delta before it), so recovery reads the base
 * and one delta. The magic differs from the full checkpoint's, so neither is read as the other.
 * Little-endian.
 */
public final class DeltaHeader {
    public static final long MAGIC = 0x464C4348_43445F31L; // "FLCHCD_1"
    public static final int VERSION = 1;
    public static final int CHANGE_BYTES = 20;
    public static final int FORGOTTEN_BYTES = 20;
    public static final int AHEAD_BYTES = 16;
    /** A change naming every sector of its segment (a segment written whole). */
    public static final int ALL_SECTORS = Integer.MAX_VALUE;
    /** The most deltas after one full checkpoint: recovery reads every delta's header, one block each. */
    public static final int MAX_DELTAS = 1024;
    /** The most invalidated chunks a delta names (20 MiB of them). */
    public static final int MAX_FORGOTTEN = 1 << 20;
    /** A delta names at most {@code max(MIN_CHANGES, segments / CHANGES_SHARE)} changed segments: recovery reads a summary for each. */
    public static final int MIN_CHANGES = 16;
    public static final int CHANGES_SHARE = 4;
    private static final int CRC_AT = 120;

    private final UUID instance;
    private final int spaceIndex;
    private final long sequence;
    private final long baseSequence;
    private final int position;
    private final long timestampMillis;
    private final int nextFileId;
    private final int fileCount;
    private final long fileTableBytes;
    private final int segments;
    private final int segmentBytes;
    private final long changes;
    private final long forgotten;
    private final long ahead;
    private final long nextSegmentSequence;
    private final int bodyCrc;

    /**
     * @param position the delta's place after its base: 1 for the first, 2 for the next, ...
     * @param changes   the segments whose use the delta names differently from the base
     * @param forgotten the chunks invalidated since the base
     * @param ahead     the records listed for segments named in part
     */
    public DeltaHeader(UUID instance, int spaceIndex, long sequence, long baseSequence, int position,
                       long timestampMillis, int nextFileId, int fileCount, long fileTableBytes, int segments,
                       int segmentBytes, long changes, long forgotten, long ahead, long nextSegmentSequence,
                       int bodyCrc) {
        this.forgotten = forgotten;
        this.ahead = ahead;
        this.instance = instance;
        this.spaceIndex = spaceIndex;
        this.sequence = sequence;
        this.baseSequence = baseSequence;
        this.position = position;
        this.timestampMillis = timestampMillis;
        this.nextFileId = nextFileId;
        this.fileCount = fileCount;
        this.fileTableBytes = fileTableBytes;
        this.segments = segments;
        this.segmentBytes = segmentBytes;
        this.changes = changes;
        this.nextSegmentSequence = nextSegmentSequence;
        this.bodyCrc = bodyCrc;
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

    /** The sequence of the full checkpoint this delta is relative to. */
    public long baseSequence() {
        return baseSequence;
    }

    /** 1 for the first delta after its base, 2 for the next, ... */
    public int position() {
        return position;
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

    public long changes() {
        return changes;
    }

    public long forgotten() {
        return forgotten;
    }

    public long ahead() {
        return ahead;
    }

    /** The most changed segments a delta of a space of {@code segments} names. */
    public static long maxChanges(int segments) {
        return Math.max(MIN_CHANGES, segments / CHANGES_SHARE);
    }

    /** The most records a delta lists for segments named in part: two segments (one open, one being written) of the smallest records. */
    public static long maxAhead(int segmentBytes) {
        return 2L * segmentBytes / RecordAddress.MIN_SECTOR_BYTES;
    }

    public long nextSegmentSequence() {
        return nextSegmentSequence;
    }

    public int bodyCrc() {
        return bodyCrc;
    }

    public long changesBytes() {
        return changes * CHANGE_BYTES;
    }

    public long forgottenBytes() {
        return forgotten * FORGOTTEN_BYTES;
    }

    public long aheadBytes() {
        return ahead * AHEAD_BYTES;
    }

    public long bodyBytes() {
        return changesBytes() + forgottenBytes() + aheadBytes() + fileTableBytes;
    }

    /** Blocks the delta takes on flash: its header and its body. */
    public long blocks() {
        return 1 + (bodyBytes() + BlockDevice.BLOCK_SIZE - 1) / BlockDevice.BLOCK_SIZE;
    }

    public ByteBuffer encode() {
        ByteBuffer block = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        block.putLong(0, MAGIC)
                .putInt(8, VERSION)
                .putLong(12, instance.getMostSignificantBits())
                .putLong(20, instance.getLeastSignificantBits())
                .putInt(28, spaceIndex)
                .putLong(32, sequence)
                .putLong(40, baseSequence)
                .putLong(48, timestampMillis)
                .putInt(56, nextFileId)
                .putInt(60, fileCount)
                .putLong(64, fileTableBytes)
                .putInt(72, segments)
                .putInt(76, segmentBytes)
                .putLong(80, changes)
                .putLong(88, nextSegmentSequence)
                .putInt(96, bodyCrc)
                .putInt(100, position)
                .putLong(104, forgotten)
                .putLong(112, ahead)
                .putInt(CRC_AT, CheckpointFormat.crc(block, CRC_AT));
        return block;
    }

    /**
     * Decodes and checks a delta header read from {@code where}: magic, version, checksum, and every
     * count within what a body of at most {@code capacityBytes} can hold.
     */
    public static DeltaHeader decode(ByteBuffer block, long capacityBytes, String where)
            throws CheckpointFormatException {
        ByteBuffer b = block.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (b.getLong(0) != MAGIC) {
            String message = where + ": no checkpoint delta (magic 0x" + Long.toHexString(b.getLong(0)) + ")";
            throw b.getLong(0) == 0 ? CheckpointFormatException.emptyArea(message) : new CheckpointFormatException(message);
        }
        if (b.getInt(8) != VERSION) {
            throw new CheckpointFormatException(where + ": checkpoint delta version " + b.getInt(8)
                    + " is not the supported version " + VERSION);
        }
        if (CheckpointFormat.crc(b, CRC_AT) != b.getInt(CRC_AT)) {
            throw new CheckpointFormatException(where + ": checkpoint delta header checksum mismatch (torn or corrupt)");
        }
        DeltaHeader h = new DeltaHeader(new UUID(b.getLong(12), b.getLong(20)), b.getInt(28), b.getLong(32),
                b.getLong(40), b.getInt(100), b.getLong(48), b.getInt(56), b.getInt(60), b.getLong(64), b.getInt(72),
                b.getInt(76), b.getLong(80), b.getLong(104), b.getLong(112), b.getLong(88), b.getInt(96));
        if (h.baseSequence() < 1 || h.sequence() <= h.baseSequence() || h.position() < 1 || h.nextFileId() < 1
                || h.nextSegmentSequence() < 1 || h.spaceIndex() < 0) {
            throw new CheckpointFormatException(where + ": checkpoint delta has sequence " + h.sequence()
                    + " after base " + h.baseSequence() + " at position " + h.position() + ", next file id "
                    + h.nextFileId() + ", next segment sequence " + h.nextSegmentSequence() + ", space "
                    + h.spaceIndex() + " (a base and position of at least 1, a sequence after its base, the rest"
                    + " positive, the space not negative)");
        }
        // Each part bounded first, so their sum cannot overflow.
        // Each part bounded by what a writer of ours makes, so the body is read into one array at most.
        if (h.segments() < 0 || h.segmentBytes() < 0 || h.fileCount() < 0 || h.fileTableBytes() < 0
                || h.fileTableBytes() > CheckpointHeader.MAX_FILE_TABLE_BYTES
                || h.changes() < 0 || h.changes() > Math.min(h.segments(), maxChanges(h.segments()))
                || h.forgotten() < 0 || h.forgotten() > MAX_FORGOTTEN
                || h.ahead() < 0 || h.ahead() > maxAhead(h.segmentBytes())
                || h.bodyBytes() > capacityBytes || h.bodyBytes() > Integer.MAX_VALUE - 8
                || h.fileCount() > h.fileTableBytes() / (CheckpointFormat.FILE_RECORD_FIXED_BYTES + 1)) {
            throw new CheckpointFormatException(where + ": a delta of " + h.changes() + " changed segments of "
                    + h.segments() + ", " + h.forgotten() + " forgotten chunks, " + h.ahead() + " records listed and "
                    + h.fileCount() + " files in " + h.fileTableBytes() + " bytes does not fit what is left of the "
                    + "area (" + capacityBytes + " bytes), or is more than a delta names");
        }
        if (h.sequence() >= CheckpointHeader.MAX_SEQUENCE || h.nextSegmentSequence() >= CheckpointHeader.MAX_SEQUENCE) {
            throw new CheckpointFormatException(where + ": checkpoint sequence " + h.sequence()
                    + " or next segment sequence " + h.nextSegmentSequence() + " is beyond "
                    + CheckpointHeader.MAX_SEQUENCE);
        }
        return h;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof DeltaHeader)) {
            return false;
        }
        DeltaHeader other = (DeltaHeader) o;
        return Objects.equals(instance, other.instance)
                && spaceIndex == other.spaceIndex
                && sequence == other.sequence
                && baseSequence == other.baseSequence
                && position == other.position
                && timestampMillis == other.timestampMillis
                && nextFileId == other.nextFileId
                && fileCount == other.fileCount
                && fileTableBytes == other.fileTableBytes
                && segments == other.segments
                && segmentBytes == other.segmentBytes
                && changes == other.changes
                && forgotten == other.forgotten
                && ahead == other.ahead
                && nextSegmentSequence == other.nextSegmentSequence
                && bodyCrc == other.bodyCrc;
    }

    @Override
    public int hashCode() {
        return Objects.hash(instance, spaceIndex, sequence, baseSequence, position, timestampMillis, nextFileId,
                fileCount, fileTableBytes, segments, segmentBytes, changes, forgotten, ahead, nextSegmentSequence, bodyCrc);
    }

    @Override
    public String toString() {
        return "DeltaHeader[instance=" + instance + ", spaceIndex=" + spaceIndex + ", sequence=" + sequence
                + ", baseSequence=" + baseSequence + ", position=" + position + ", timestampMillis=" + timestampMillis
                + ", nextFileId=" + nextFileId + ", fileCount=" + fileCount + ", fileTableBytes=" + fileTableBytes
                + ", segments=" + segments + ", segmentBytes=" + segmentBytes + ", changes=" + changes + ", forgotten=" + forgotten
                + ", ahead=" + ahead
                + ", nextSegmentSequence=" + nextSegmentSequence + ", bodyCrc=" + bodyCrc + "]";
    }
}

package io.flashchunk.cache.format;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.upgrade.PerChunkEngine;
import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.UUID;

/**
 * Block 0 of a device of the engine: which cache, which of its address spaces, the geometry
 * its areas and segments were laid out with, and {@code sequenceLimit}: no segment sequence at or
 * above it has been given out on the device (the run that wrote it reserved the sequences below;
 * 0 in a version 3 superblock, which reserved none). It has the superblock magic of the removed
 * per-chunk engine and format version {@value #VERSION}, so that engine refused it by version, and
 * this engine recognises a device of the per-chunk engine ({@link PerChunkEngine#holdsFormat}) to
 * reformat it, never to read it.
 *
 * <p>The sequence limit rises at every start, on every device; with it, a {@link StartStamp} says
 * which run and start of the cache last wrote the device, so that the next start keeps only the
 * devices of the cache's last start ({@code DeviceSet}). The stamp lies after the checksummed fields
 * with a checksum of its own, so that releases before it, which neither read nor write it, read the
 * rest as ever; such a release leaves zeros there, read as {@link StartStamp#NONE}.
 *
 * <p>Everything it holds, checksums included, lies in the block's first 512 bytes, so a write of it
 * torn at the device's sector granularity leaves the old one or the new one, never a mix.
 */
public final class Superblock {
    /**
     * 5: with the space's sector size, written for a device with sectors over 64 bytes (segments
     * past 4 TiB); 4: with the sequence reservation, sectors of 64 bytes, still written for every
     * other device so that an earlier release reads it; 3 (read, and rewritten as 4 at the next start):
     * without the reservation (2: records aligned to 512 bytes; its devices are formatted anew, never read).
     */
    public static final int VERSION = 5;
    private static final int VERSION_64_BYTE_SECTORS = 4;
    private static final int VERSION_WITHOUT_RESERVATION = 3;
    private static final int RESERVATION_AT = 64;
    private static final int SECTOR_BYTES_AT = 72;
    private static final int CRC_AT = 76;
    private static final int CRC_AT_VERSION_4 = 72;
    private static final int CRC_AT_VERSION_3 = 64;
    private static final int RUN_AT = 96;
    private static final int START_AT = 104;
    private static final int PREVIOUS_START_AT = 112;
    private static final int STARTED_AT = 120;
    private static final int SETTLED_AT = 128;
    private static final int STAMP_CRC_AT = 132;

    private final UUID instance;
    private final int spaceIndex;
    private final int spaceCount;
    private final DeviceLayout layout;
    private final long sequenceLimit;
    private final StartStamp stamp;

    /** A superblock as a release before stamps wrote it ({@link StartStamp#NONE}). */
    public Superblock(UUID instance, int spaceIndex, int spaceCount, DeviceLayout layout, long sequenceLimit) {
        this(instance, spaceIndex, spaceCount, layout, sequenceLimit, StartStamp.NONE);
    }

    public Superblock(UUID instance, int spaceIndex, int spaceCount, DeviceLayout layout, long sequenceLimit,
                      StartStamp stamp) {
        if (sequenceLimit < 0 || sequenceLimit > CheckpointHeader.MAX_SEQUENCE) {
            throw new IllegalArgumentException("sequence limit " + sequenceLimit + " is outside 0.."
                    + CheckpointHeader.MAX_SEQUENCE);
        }
        this.instance = instance;
        this.spaceIndex = spaceIndex;
        this.spaceCount = spaceCount;
        this.layout = layout;
        this.sequenceLimit = sequenceLimit;
        this.stamp = stamp;
    }

    public UUID instance() {
        return instance;
    }

    public int spaceIndex() {
        return spaceIndex;
    }

    public int spaceCount() {
        return spaceCount;
    }

    public DeviceLayout layout() {
        return layout;
    }

    public long sequenceLimit() {
        return sequenceLimit;
    }

    /** Which run and start of the cache last wrote this superblock. */
    public StartStamp stamp() {
        return stamp;
    }

    /** This superblock with sequences reserved below {@code limit}. */
    Superblock reserving(long limit) {
        return new Superblock(instance, spaceIndex, spaceCount, layout, limit, stamp);
    }

    /** This superblock as its start's second write: every device of the start holds its stamp. */
    public Superblock asSettled() {
        return new Superblock(instance, spaceIndex, spaceCount, layout, sequenceLimit, stamp.asSettled());
    }

    public ByteBuffer encode() {
        ByteBuffer block = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        boolean version4 = layout.sectorBytes() == RecordAddress.MIN_SECTOR_BYTES;
        block.putLong(0, CheckpointFormat.SUPERBLOCK_MAGIC)
                .putInt(8, version4 ? VERSION_64_BYTE_SECTORS : VERSION)
                .putLong(12, instance.getMostSignificantBits())
                .putLong(20, instance.getLeastSignificantBits())
                .putInt(28, spaceIndex)
                .putInt(32, spaceCount)
                .putInt(36, BlockDevice.BLOCK_SIZE)
                .putLong(40, layout.deviceBlocks())
                .putInt(48, layout.segmentBytes())
                .putLong(52, layout.areaBlocks())
                .putInt(60, layout.segments())
                .putLong(RESERVATION_AT, sequenceLimit);
        block.putLong(RUN_AT, stamp.runId()).putLong(START_AT, stamp.startId())
                .putLong(PREVIOUS_START_AT, stamp.previousStartId()).putLong(STARTED_AT, stamp.startedMillis())
                .putInt(SETTLED_AT, stamp.settled() ? 1 : 0).putInt(STAMP_CRC_AT, stampCrc(block));
        if (version4) {
            block.putInt(CRC_AT_VERSION_4, CheckpointFormat.crc(block, CRC_AT_VERSION_4));
        } else {
            block.putInt(SECTOR_BYTES_AT, layout.sectorBytes()).putInt(CRC_AT, CheckpointFormat.crc(block, CRC_AT));
        }
        return block;
    }

    /** Whether {@code block} claims to be this engine's superblock (magic and version; {@link #decode} checks the rest). */
    static boolean holdsEngineFormat(ByteBuffer block) {
        ByteBuffer b = block.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return b.limit() >= 12 && b.getLong(0) == CheckpointFormat.SUPERBLOCK_MAGIC && isRead(b.getInt(8));
    }

    /** Decodes and checks block 0 of {@code where}: magic, version, checksum, block size, geometry. */
    public static Superblock decode(ByteBuffer block, String where) throws CheckpointFormatException {
        ByteBuffer b = block.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (b.getLong(0) != CheckpointFormat.SUPERBLOCK_MAGIC) {
            throw new CheckpointFormatException(where + ": no FlashChunk superblock (magic 0x"
                    + Long.toHexString(b.getLong(0)) + ")");
        }
        int version = b.getInt(8);
        if (!isRead(version)) {
            throw new CheckpointFormatException(where + ": superblock format version " + version
                    + (version == PerChunkEngine.SUPERBLOCK_VERSION ? " (the per-chunk engine's)" : "")
                    + " is not one of the engine's versions " + VERSION_WITHOUT_RESERVATION + " to " + VERSION);
        }
        int crcAt = version == VERSION ? CRC_AT : version == VERSION_64_BYTE_SECTORS ? CRC_AT_VERSION_4 : CRC_AT_VERSION_3;
        if (CheckpointFormat.crc(b, crcAt) != b.getInt(crcAt)) {
            throw new CheckpointFormatException(where + ": superblock checksum mismatch");
        }
        if (b.getInt(36) != BlockDevice.BLOCK_SIZE) {
            throw new CheckpointFormatException(where + ": block size " + b.getInt(36) + " is not " + BlockDevice.BLOCK_SIZE);
        }
        if (version == VERSION && b.getInt(SECTOR_BYTES_AT) == RecordAddress.MIN_SECTOR_BYTES) {
            throw new CheckpointFormatException(where + ": superblock version " + VERSION + " names "
                    + RecordAddress.MIN_SECTOR_BYTES + "-byte sectors, which only version " + VERSION_64_BYTE_SECTORS
                    + " holds");
        }
        int space = b.getInt(28);
        int spaces = b.getInt(32);
        if (spaces < 1 || spaces > RecordAddress.MAX_SPACES || space < 0 || space >= spaces) {
            throw new CheckpointFormatException(where + ": superblock names address space " + space + " of " + spaces);
        }
        long limit = version == VERSION_WITHOUT_RESERVATION ? 0 : b.getLong(RESERVATION_AT);
        // Zeros (a release before stamps) fail the stamp's checksum: none recorded.
        StartStamp stamp = StartStamp.NONE;
        if (stampCrc(b) == b.getInt(STAMP_CRC_AT)) {
            int settled = b.getInt(SETTLED_AT);
            if (settled < 0 || settled > 1) {
                throw new CheckpointFormatException(where + ": superblock names start state " + settled);
            }
            stamp = new StartStamp(b.getLong(RUN_AT), b.getLong(START_AT), b.getLong(PREVIOUS_START_AT),
                    b.getLong(STARTED_AT), settled == 1);
        }
        try {
            return new Superblock(new UUID(b.getLong(12), b.getLong(20)), b.getInt(28), b.getInt(32),
                    new DeviceLayout(b.getLong(40), b.getInt(48), b.getLong(52), b.getInt(60),
                            version == VERSION ? b.getInt(SECTOR_BYTES_AT) : RecordAddress.MIN_SECTOR_BYTES),
                    limit, stamp);
        } catch (IllegalArgumentException e) {
            throw new CheckpointFormatException(where + ": superblock geometry is impossible: " + e.getMessage());
        }
    }

    /** The stamp's own checksum: an earlier release leaves zeros there, which it does not match. */
    private static int stampCrc(ByteBuffer block) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(block.duplicate().limit(STAMP_CRC_AT).position(RUN_AT));
        return (int) crc.getValue();
    }

    private static boolean isRead(int version) {
        return version == VERSION || version == VERSION_64_BYTE_SECTORS || version == VERSION_WITHOUT_RESERVATION;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Superblock)) {
            return false;
        }
        Superblock other = (Superblock) o;
        return Objects.equals(instance, other.instance)
                && spaceIndex == other.spaceIndex
                && spaceCount == other.spaceCount
                && Objects.equals(layout, other.layout)
                && sequenceLimit == other.sequenceLimit
                && stamp.equals(other.stamp);
    }

    @Override
    public int hashCode() {
        return Objects.hash(instance, spaceIndex, spaceCount, layout, sequenceLimit, stamp);
    }

    @Override
    public String toString() {
        return "Superblock[instance=" + instance + ", spaceIndex=" + spaceIndex + ", spaceCount=" + spaceCount
                + ", layout=" + layout + ", sequenceLimit=" + sequenceLimit + ", stamp=" + stamp + "]";
    }
}

package io.flashchunk.cache.compact;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.checkpoint.CheckpointFormat;
import io.flashchunk.cache.checkpoint.CheckpointFormatException;
import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * Block 0 of a device of the compact engine: which cache, which of its address spaces, and the
 * geometry its areas and segments were laid out with. It has the superblock magic of the removed
 * per-chunk engine and format version {@value #VERSION}, so that engine refused it by version, and
 * this engine recognises a device of the per-chunk engine ({@link #isPerChunkEngineFormat}) to
 * reformat it, never to read it.
 */
public record CompactSuperblock(UUID instance, int spaceIndex, int spaceCount, CompactDeviceLayout layout) {
    /** 3: records aligned to 64 bytes (2: to 512, its devices are formatted anew, never read). */
    public static final int VERSION = 3;
    private static final int CRC_AT = 64;

    /**
     * Why this superblock, found on {@code path}, cannot be device {@code index} of {@code count} of
     * one cache laid out as {@code expected} whose first device holds {@code first}; null if it can.
     * Start and the checkpoint tool judge a device set by this one rule.
     */
    public String mismatch(int index, int count, CompactDeviceLayout expected, CompactSuperblock first, String path) {
        if (spaceIndex != index || spaceCount != count) {
            return path + " holds address space " + spaceIndex + " of " + spaceCount
                    + ", but is configured as space " + index + " of " + count;
        }
        if (!layout.equals(expected)) {
            return path + " was laid out as " + layout + ", the configuration gives " + expected
                    + " (capacity or segment size changed)";
        }
        if (!instance.equals(first.instance())) {
            return path + " belongs to cache instance " + instance + ", the first device to " + first.instance();
        }
        return null;
    }

    public ByteBuffer encode() {
        ByteBuffer block = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        block.putLong(0, CheckpointFormat.SUPERBLOCK_MAGIC)
                .putInt(8, VERSION)
                .putLong(12, instance.getMostSignificantBits())
                .putLong(20, instance.getLeastSignificantBits())
                .putInt(28, spaceIndex)
                .putInt(32, spaceCount)
                .putInt(36, BlockDevice.BLOCK_SIZE)
                .putLong(40, layout.deviceBlocks())
                .putInt(48, layout.segmentBytes())
                .putLong(52, layout.areaBlocks())
                .putInt(60, layout.segments())
                .putInt(CRC_AT, crc(block));
        return block;
    }

    /** Whether {@code block} claims to be this engine's superblock (magic and version; {@link #decode} checks the rest). */
    public static boolean isCompactFormat(ByteBuffer block) {
        ByteBuffer b = block.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return b.limit() >= 12 && b.getLong(0) == CheckpointFormat.SUPERBLOCK_MAGIC && b.getInt(8) == VERSION;
    }

    /** Whether {@code block} is the superblock of the removed per-chunk engine (format version 1). */
    public static boolean isPerChunkEngineFormat(ByteBuffer block) {
        ByteBuffer b = block.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return b.getLong(0) == CheckpointFormat.SUPERBLOCK_MAGIC && b.getInt(8) == CheckpointFormat.PER_CHUNK_SUPERBLOCK_VERSION;
    }

    /** Decodes and checks block 0 of {@code where}: magic, version, checksum, block size, geometry. */
    public static CompactSuperblock decode(ByteBuffer block, String where) throws CheckpointFormatException {
        ByteBuffer b = block.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (b.getLong(0) != CheckpointFormat.SUPERBLOCK_MAGIC) {
            throw new CheckpointFormatException(where + ": no FlashChunk superblock (magic 0x"
                    + Long.toHexString(b.getLong(0)) + ")");
        }
        if (b.getInt(8) != VERSION) {
            throw new CheckpointFormatException(where + ": superblock format version " + b.getInt(8)
                    + (b.getInt(8) == CheckpointFormat.PER_CHUNK_SUPERBLOCK_VERSION ? " (the per-chunk engine's)" : "")
                    + " is not the compact engine's version " + VERSION);
        }
        if (crc(b) != b.getInt(CRC_AT)) {
            throw new CheckpointFormatException(where + ": superblock checksum mismatch");
        }
        if (b.getInt(36) != BlockDevice.BLOCK_SIZE) {
            throw new CheckpointFormatException(where + ": block size " + b.getInt(36) + " is not " + BlockDevice.BLOCK_SIZE);
        }
        int space = b.getInt(28);
        int spaces = b.getInt(32);
        if (spaces < 1 || spaces > RecordAddress.MAX_SPACES || space < 0 || space >= spaces) {
            throw new CheckpointFormatException(where + ": superblock names address space " + space + " of " + spaces);
        }
        try {
            return new CompactSuperblock(new UUID(b.getLong(12), b.getLong(20)), b.getInt(28), b.getInt(32),
                    new CompactDeviceLayout(b.getLong(40), b.getInt(48), b.getLong(52), b.getInt(60)));
        } catch (IllegalArgumentException e) {
            throw new CheckpointFormatException(where + ": superblock geometry is impossible: " + e.getMessage());
        }
    }

    private static int crc(ByteBuffer block) {
        CRC32C crc = new CRC32C();
        crc.update(block.duplicate().position(0).limit(CRC_AT));
        return (int) crc.getValue();
    }
}

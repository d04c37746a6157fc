package io.flashchunk.cache.checkpoint;

import io.flashchunk.buffer.AlignedBuffers;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.UUID;

/**
 * Block 0 of every cache device: which cache (instance id), which of its address spaces, and the
 * geometry the rest of the device was laid out with. A device whose superblock does not match the
 * configuration is never read as a cache.
 */
public record Superblock(UUID instance, int spaceIndex, int spaceCount, SpaceLayout layout) {
    static final int BYTES = 76;

    public ByteBuffer encode() {
        ByteBuffer block = AlignedBuffers.allocate(SpaceLayout.BLOCK_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        block.putLong(0, CheckpointFormat.SUPERBLOCK_MAGIC)
                .putInt(8, CheckpointFormat.PER_CHUNK_SUPERBLOCK_VERSION)
                .putLong(12, instance.getMostSignificantBits())
                .putLong(20, instance.getLeastSignificantBits())
                .putInt(28, spaceIndex)
                .putInt(32, spaceCount)
                .putInt(36, SpaceLayout.BLOCK_SIZE)
                .putLong(40, layout.deviceBlocks())
                .putLong(48, layout.areaBlocks())
                .putLong(56, layout.dataStart())
                .putLong(64, layout.dataBlocks())
                .putInt(72, CheckpointFormat.crc(block, 0, 72));
        return block;
    }

    /** Reads a superblock; a block of zeros (a device never formatted) is reported as such. */
    public static Superblock decode(ByteBuffer block, String where) throws CheckpointFormatException {
        ByteBuffer b = block.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long magic = b.getLong(0);
        if (magic != CheckpointFormat.SUPERBLOCK_MAGIC) {
            throw new CheckpointFormatException(where + ": no FlashChunk superblock (magic 0x"
                    + Long.toHexString(magic) + ")");
        }
        int version = b.getInt(8);
        if (version != CheckpointFormat.PER_CHUNK_SUPERBLOCK_VERSION) {
            throw new CheckpointFormatException(where + ": superblock format version " + version
                    + " is not the supported version " + CheckpointFormat.PER_CHUNK_SUPERBLOCK_VERSION);
        }
        int crc = CheckpointFormat.crc(b, 0, 72);
        if (crc != b.getInt(72)) {
            throw new CheckpointFormatException(where + ": superblock checksum mismatch");
        }
        int blockSize = b.getInt(36);
        if (blockSize != SpaceLayout.BLOCK_SIZE) {
            throw new CheckpointFormatException(where + ": block size " + blockSize + " is not " + SpaceLayout.BLOCK_SIZE);
        }
        SpaceLayout layout = new SpaceLayout(b.getLong(40), b.getLong(48), b.getLong(56), b.getLong(64));
        return new Superblock(new UUID(b.getLong(12), b.getLong(20)), b.getInt(28), b.getInt(32), layout);
    }
}

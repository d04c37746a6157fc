package io.flashchunk.testing;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.format.CheckpointFormat;
import io.flashchunk.cache.upgrade.PerChunkEngine;
import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * Block 0 of a device the removed per-chunk engine formatted (its superblock, format version 1), for
 * tests that an upgraded node reformats such a device and never reads it. Only the fields the
 * recognition looks at carry meaning; the geometry is plausible, not used.
 */
public final class PerChunkSuperblock {
    private PerChunkSuperblock() {
    }

    public static ByteBuffer block(UUID instance, long deviceBlocks) {
        ByteBuffer block = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        block.putLong(0, CheckpointFormat.SUPERBLOCK_MAGIC)
                .putInt(8, PerChunkEngine.SUPERBLOCK_VERSION)
                .putLong(12, instance.getMostSignificantBits())
                .putLong(20, instance.getLeastSignificantBits())
                .putInt(28, 0)
                .putInt(32, 1)
                .putInt(36, BlockDevice.BLOCK_SIZE)
                .putLong(40, deviceBlocks);
        CRC32C crc = new CRC32C();
        crc.update(block.duplicate().position(0).limit(72));
        return block.putInt(72, (int) crc.getValue());
    }
}

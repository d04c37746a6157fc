package io.flashchunk.cache.checkpoint;

import io.flashchunk.buffer.AlignedBuffers;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.UUID;

/**
 * Block 0 of a checkpoint area, written last: the body (the file table, then the entries) is trusted
 * only through the lengths and checksums here, and this block only through its own checksum.
 */
public record CheckpointHeader(UUID instance, int spaceIndex, long sequence, long timestampMillis, int nextFileId,
                               long entryCount, int fileCount, long fileTableBytes, int entriesCrc,
                               int fileTableCrc) {
    static final int BYTES = 84;

    public long bodyBytes() {
        return entryCount * CheckpointFormat.ENTRY_BYTES + fileTableBytes;
    }

    public ByteBuffer encode() {
        ByteBuffer block = AlignedBuffers.allocate(SpaceLayout.BLOCK_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        block.putLong(0, CheckpointFormat.HEADER_MAGIC)
                .putInt(8, CheckpointFormat.CHECKPOINT_VERSION)
                .putLong(12, instance.getMostSignificantBits())
                .putLong(20, instance.getLeastSignificantBits())
                .putInt(28, spaceIndex)
                .putLong(32, sequence)
                .putLong(40, timestampMillis)
                .putInt(48, nextFileId)
                .putInt(52, fileCount)
                .putLong(56, fileTableBytes)
                .putLong(64, entryCount)
                .putInt(72, fileTableCrc)
                .putInt(76, entriesCrc)
                .putInt(80, CheckpointFormat.crc(block, 0, 80));
        return block;
    }

    public static CheckpointHeader decode(ByteBuffer block, String where) throws CheckpointFormatException {
        ByteBuffer b = block.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long magic = b.getLong(0);
        if (magic != CheckpointFormat.HEADER_MAGIC) {
            throw new CheckpointFormatException(where + ": no checkpoint header (magic 0x" + Long.toHexString(magic) + ")");
        }
        int version = b.getInt(8);
        if (version != CheckpointFormat.CHECKPOINT_VERSION) {
            throw new CheckpointFormatException(where + ": checkpoint format version " + version
                    + " is not the supported version " + CheckpointFormat.CHECKPOINT_VERSION);
        }
        if (CheckpointFormat.crc(b, 0, 80) != b.getInt(80)) {
            throw new CheckpointFormatException(where + ": checkpoint header checksum mismatch (torn or corrupt)");
        }
        CheckpointHeader header = new CheckpointHeader(new UUID(b.getLong(12), b.getLong(20)), b.getInt(28),
                b.getLong(32), b.getLong(40), b.getInt(48), b.getLong(64), b.getInt(52), b.getLong(56), b.getInt(76),
                b.getInt(72));
        if (header.entryCount() < 0 || header.fileCount() < 0 || header.fileTableBytes() < 0 || header.sequence() <= 0) {
            throw new CheckpointFormatException(where + ": checkpoint header has negative counts or sequence "
                    + header.sequence());
        }
        if (header.nextFileId() <= 0) {
            throw new CheckpointFormatException(where + ": checkpoint header's next file id " + header.nextFileId()
                    + " is not positive");
        }
        return header;
    }
}

package io.flashchunk.cache.format;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** Constants the on-flash formats share (docs/checkpoint-format.md). */
public final class CheckpointFormat {
    /** Block 0's first eight bytes on every device the cache formatted: "FLCHSB_1". */
    public static final long SUPERBLOCK_MAGIC = 0x464C4348_53425F31L;
    /** A file record before its path: id, size, modified, inode, birth time, generation, path length. */
    public static final int FILE_RECORD_FIXED_BYTES = 4 + 8 + 8 + 8 + 8 + 8 + 2;
    /** Longest file path kept in a file table, in UTF-8 bytes. */
    public static final int MAX_PATH_BYTES = 4096;

    private CheckpointFormat() {
    }

    /** CRC32C of a header block's bytes 0 to {@code crcAt}: every header's own checksum. */
    static int crc(ByteBuffer block, int crcAt) {
        CRC32C crc = new CRC32C();
        crc.update(block.duplicate().position(0).limit(crcAt));
        return (int) crc.getValue();
    }
}

package io.flashchunk.cache.checkpoint;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** Constants and small helpers of the on-flash format (docs/checkpoint-format.md). */
public final class CheckpointFormat {
    public static final long SUPERBLOCK_MAGIC = 0x464C4348_53425F31L; // "FLCHSB_1"
    public static final long HEADER_MAGIC = 0x464C4348_43505F31L;     // "FLCHCP_1"
    public static final int VERSION = 1;
    /** One cached chunk: file id (4), chunk index (4), location (8), CRC32C of the chunk (4). */
    public static final int ENTRY_BYTES = 20;
    /** Longest file path kept in a file table, in UTF-8 bytes. */
    public static final int MAX_PATH_BYTES = 4096;

    private CheckpointFormat() {
    }

    static int crc(ByteBuffer buffer, int from, int to) {
        CRC32C crc = new CRC32C();
        crc.update(buffer.duplicate().limit(to).position(from));
        return (int) crc.getValue();
    }
}

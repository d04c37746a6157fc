package io.flashchunk.cache.checkpoint;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** Constants and small helpers of the on-flash format (docs/checkpoint-format.md). */
public final class CheckpointFormat {
    public static final long SUPERBLOCK_MAGIC = 0x464C4348_53425F31L; // "FLCHSB_1"
    public static final long HEADER_MAGIC = 0x464C4348_43505F31L;     // "FLCHCP_1"
    /** The superblock version of the per-chunk engine (removed): the compact engine reformats such a device, never reads it. */
    public static final int PER_CHUNK_SUPERBLOCK_VERSION = 1;
    /** 2: file records carry the birth time and inode generation (version 1 checkpoints are not read). */
    public static final int CHECKPOINT_VERSION = 2;
    /** A file record before its path: id, size, modified, inode, birth time, generation, path length. */
    public static final int FILE_RECORD_FIXED_BYTES = 4 + 8 + 8 + 8 + 8 + 8 + 2;
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

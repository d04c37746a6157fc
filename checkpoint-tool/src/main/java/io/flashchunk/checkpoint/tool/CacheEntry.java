package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.checkpoint.SpaceLayout;
import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.cache.index.FileIdentity;

/**
 * One cached chunk as a checkpoint records it, decoded.
 *
 * @param space    the address space (the device's index in the cache)
 * @param device   the path of the device it is on
 * @param fileId   the file's id in the checkpoint's file table
 * @param file     the file as recorded (path, size, modification time, inode)
 * @param position the chunk's byte offset in its file
 * @param length   the chunk's bytes
 * @param lba      the first block of its run on the device
 * @param stamp    the location's version stamp (changes whenever the chunk moves)
 * @param crc      CRC32C of the chunk's bytes
 */
record CacheEntry(int space, String device, int fileId, FileIdentity file, long position, int length, long lba,
                  int stamp, int crc) {

    /** Blocks of the run the chunk occupies: the power of two at or above its block count. */
    int runBlocks() {
        return 1 << ChunkLocation.order(length);
    }

    int runBytes() {
        return runBlocks() * SpaceLayout.BLOCK_SIZE;
    }

    /** Whether the chunk is shorter than its run (its length is not a power-of-two number of blocks). */
    boolean isShort() {
        return length < runBytes();
    }

    /** The CRC as 8 hex digits. */
    String crcHex() {
        return String.format("%08x", crc);
    }

    /** "space 0 LBA 1234, /data/nb-1-big-Data.db at 16384" for messages. */
    String describe() {
        return "space " + space + " LBA " + lba + ", " + file.path() + " at " + position;
    }
}

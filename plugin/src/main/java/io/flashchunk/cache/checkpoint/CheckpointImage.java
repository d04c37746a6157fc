package io.flashchunk.cache.checkpoint;

import io.flashchunk.cache.index.FileIdentity;
import java.util.BitSet;
import java.util.Map;

/**
 * One checked checkpoint of one address space: its header, its file table, and its entries, read in
 * place from the body's segments (20 bytes each: file id, chunk index, location, CRC32C).
 */
public final class CheckpointImage {
    private final CheckpointHeader header;
    private final Map<Integer, FileIdentity> files;
    private final EntrySegments entries;
    private BitSet usedBlocks;

    CheckpointImage(CheckpointHeader header, Map<Integer, FileIdentity> files, EntrySegments entries) {
        this.header = header;
        this.files = Map.copyOf(files);
        this.entries = entries;
    }

    /** Set once by the reader's checks, before the image is handed out. */
    void usedBlocks(BitSet used) {
        this.usedBlocks = used;
    }

    /**
     * The data blocks the entries' runs cover, relative to the first data block (the reader checked
     * that no two overlap). Recovery claims them all at once instead of run by run. Do not modify.
     */
    public BitSet usedBlocks() {
        return usedBlocks;
    }

    public CheckpointHeader header() {
        return header;
    }

    /** Files by id. */
    public Map<Integer, FileIdentity> files() {
        return files;
    }

    public int entryCount() {
        return (int) header.entryCount();
    }

    public int fileId(int entry) {
        return entries.getInt(entry, 0);
    }

    /** The chunk's key as the index builds it (file id high, chunk index low). */
    public long key(int entry) {
        return (long) fileId(entry) << 32 | (entries.getInt(entry, 4) & 0xFFFF_FFFFL);
    }

    public long location(int entry) {
        return entries.getLong(entry, 8);
    }

    public int crc(int entry) {
        return entries.getInt(entry, 16);
    }
}

package io.flashchunk.cache.index;

import io.flashchunk.cache.format.RecordAddress;
import java.util.function.LongPredicate;

/**
 * The one place where a chunk's location changes: every put into and removal from the
 * {@link ChunkIndex} goes through here (its mutators are package-private), so "who moves a chunk" has
 * one answer. Callers: the writer thread (appends, reclaims, failed writes, invalidations, damaged
 * records) and recovery before the writer starts. Not thread-safe, like the index's mutators: one
 * writer at a time; readers read the index concurrently.
 */
public final class ChunkLocations {
    private final ChunkIndex index;

    public ChunkLocations(ChunkIndex index) {
        this.index = index;
    }

    /** The index these locations change, for reading. */
    public ChunkIndex index() {
        return index;
    }

    /**
     * The writer appended {@code key}'s record at {@code address}: reads find it there from now on.
     * Returns the address it took the place of ({@link ChunkIndex#put}), {@link RecordAddress#NONE} if none.
     */
    public long placed(long key, long address) {
        return index.put(key, address);
    }

    /**
     * The record at {@code address} is gone (its segment reclaimed, its write failed): {@code key}'s
     * entry goes if it still points there; returns whether it did.
     */
    public boolean dropped(long key, long address) {
        return index.remove(key, address);
    }

    /** Whatever {@code key} points at goes: its chunk changed in its file, or its record is damaged. */
    public void forget(long key) {
        long address = index.find(key);
        if (address != RecordAddress.NONE) {
            index.remove(key, address);
        }
    }

    /** Every entry whose address {@code onAddress} accepts goes (a range of flash no longer holds them); returns how many. */
    public long droppedWhere(LongPredicate onAddress) {
        return index.removeIf(onAddress);
    }

    /**
     * Recovery, before the writer starts: puts back a slot a checkpoint named with its bucket, first
     * the exact way when the checkpoint's pass was exact ({@link ChunkIndex#restoreExact}), else the
     * way that tolerates a fuzzy pass ({@link ChunkIndex#restore}); returns whether it went back.
     */
    public boolean restore(long bucket, long slot, boolean exact) {
        return exact && index.restoreExact(bucket, slot) || index.restore(bucket, slot);
    }
}

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
    /** Told of every change, or null (recovery's: the writer counts the index once recovered). */
    private final SegmentEntries entries;

    /** Locations that no one counts per segment (recovery's). */
    public ChunkLocations(ChunkIndex index) {
        this(index, null);
    }

    /** Locations whose every change {@code entries} counts. */
    public ChunkLocations(ChunkIndex index, SegmentEntries entries) {
        this.index = index;
        this.entries = entries;
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
        long displaced = index.put(key, address);
        if (entries != null) {
            entries.placed(address);
            if (displaced != RecordAddress.NONE) {
                entries.gone(displaced);
            }
        }
        return displaced;
    }

    /**
     * The record at {@code address} is gone (its segment reclaimed, its write failed): {@code key}'s
     * entry goes if it still points there; returns whether it did.
     */
    public boolean dropped(long key, long address) {
        boolean removed = index.remove(key, address);
        if (removed && entries != null) {
            entries.gone(address);
        }
        return removed;
    }

    /** Whatever {@code key} points at goes: its chunk changed in its file, or its record is damaged. */
    public void forget(long key) {
        long address = index.find(key);
        if (address != RecordAddress.NONE) {
            dropped(key, address);
        }
    }

    /** Every entry whose address {@code onAddress} accepts goes (a range of flash no longer holds them); returns how many. */
    public long droppedWhere(LongPredicate onAddress) {
        return entries == null ? index.removeIf(onAddress) : index.removeIf(onAddress, entries::gone);
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

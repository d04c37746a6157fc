package io.flashchunk.cache.index;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Recovered entries not yet moved into the {@link ChunkIndex}: an open-addressing hash table of
 * primitive arrays (key, location, CRC32C; 20 bytes a slot, at most 3/4 of the slots used), built
 * in one pass over the checkpoint images. Recovery ends when this table is built rather than when
 * Caffeine has taken every entry: the table costs no object per entry, so no Caffeine maintenance
 * and no garbage-collector copying. Linear probing keeps a lookup within one or two cache lines.
 *
 * <p>An entry's location is its version, as in {@link ChunkEntry}: the entry leaves the table
 * exactly once, by a compare-and-set to {@link ChunkLocation#DEAD} ({@link #take}), whether it moves
 * into the index or is invalidated; whoever wins owns its run. Keys stay, so lookups need no
 * tombstones. Filled by one thread ({@link #add}), then published to the others.
 */
public final class RecoveredEntries {
    private static final VarHandle LOCATIONS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Keys are never 0 (file ids start at 1): 0 marks an empty slot. */
    private static final long EMPTY = 0;

    private final long[] keys;
    private final long[] locations;
    private final int[] crcs;
    private final int mask;
    private final int capacity;
    // Written only while filling, before the table is published.
    private int added;
    private long addedBlocks;
    private final AtomicLong taken = new AtomicLong();
    private final AtomicLong takenBlocks = new AtomicLong();

    /** Most entries one table holds: 3/4 of 2^30 slots. */
    public static final int MAX_ENTRIES = 3 << 28;

    /** A table for up to {@code capacity} entries. */
    public RecoveredEntries(int capacity) {
        if (capacity < 0 || capacity > MAX_ENTRIES) {
            throw new IllegalArgumentException("cannot hold " + capacity + " recovered entries (at most "
                    + MAX_ENTRIES + ")");
        }
        // The next power of two of 4/3 of the capacity: at most 3/4 of the slots in use.
        int wanted = (int) Math.max(16, (capacity * 4L + 2) / 3);
        int slots = Integer.highestOneBit(wanted - 1) << 1;
        this.capacity = capacity;
        keys = new long[slots];
        locations = new long[slots];
        crcs = new int[slots];
        mask = slots - 1;
    }

    /** Adds an entry unless its key is already here (a checkpoint may list a key twice); returns whether added. */
    public boolean add(long key, long location, int crc) {
        if (key == EMPTY || ChunkLocation.isDead(location)) {
            throw new IllegalArgumentException("not an entry: key " + key + ", " + ChunkLocation.describe(location));
        }
        if (added == capacity) {
            throw new IllegalStateException("recovered-entry table full at " + added + " entries");
        }
        int slot = home(key);
        long found;
        while ((found = keys[slot]) != EMPTY) {
            if (found == key) {
                return false;
            }
            slot = (slot + 1) & mask;
        }
        keys[slot] = key;
        locations[slot] = location;
        crcs[slot] = crc;
        added++;
        addedBlocks += blocksOf(location);
        return true;
    }

    /** The slot of {@code key} while its entry is still here, or -1. */
    public int find(long key) {
        int slot = home(key);
        long found;
        while ((found = keys[slot]) != EMPTY) {
            if (found == key) {
                return ChunkLocation.isDead(location(slot)) ? -1 : slot;
            }
            slot = (slot + 1) & mask;
        }
        return -1;
    }

    /** Slots to iterate over, {@code 0 .. slots() - 1}; empty ones and those taken have a dead location. */
    public int slots() {
        return keys.length;
    }

    public long key(int slot) {
        return keys[slot];
    }

    public int crc(int slot) {
        return crcs[slot];
    }

    /** The slot's location, {@link ChunkLocation#DEAD} when empty or taken. */
    public long location(int slot) {
        return keys[slot] == EMPTY ? ChunkLocation.DEAD : (long) LOCATIONS.getVolatile(locations, slot);
    }

    /**
     * Takes the entry out if it is still at {@code expected}; the caller then owns its run. Returns
     * false when someone else took it first.
     */
    public boolean take(int slot, long expected) {
        if (ChunkLocation.isDead(expected) || !LOCATIONS.compareAndSet(locations, slot, expected, ChunkLocation.DEAD)) {
            return false;
        }
        taken.incrementAndGet();
        takenBlocks.addAndGet(blocksOf(expected));
        return true;
    }

    /** Whether {@link #add} would refuse any further entry. */
    public boolean isFull() {
        return added == capacity;
    }

    /** Entries still here. */
    public long entries() {
        return added - taken.get();
    }

    /** Flash blocks the entries still here take. */
    public long blocks() {
        return addedBlocks - takenBlocks.get();
    }

    private static long blocksOf(long location) {
        return 1L << ChunkLocation.order(ChunkLocation.length(location));
    }

    private int home(long key) {
        return ChunkKeys.hash(key) & mask;
    }
}

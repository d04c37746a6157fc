package io.flashchunk.cache.queue;

import io.flashchunk.cache.index.ChunkEntry;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.index.ChunkKeys;
import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.cache.space.AddressSpace;
import io.flashchunk.cache.space.SpaceManager;
import io.flashchunk.cache.space.SpaceManager.Allocation;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Puts a file's consecutive chunks side by side on flash, so that a read of one can fetch the next
 * with the same I/O (see {@code FlashChunkCache.get}). A partition that spans a chunk boundary (the
 * paper's records of 64,000 bytes in 64 KiB chunks span two) is then one flash read, not two.
 *
 * <p>For a chunk about to be written, the neighbours are the file's chunk before it and the one after
 * it, either on flash (in the index) or among the last {@value #RECENT} allocations (their writes may
 * still be in flight: the two chunks of a partition read on a miss reach the queue shortly one after
 * the other, with other readers' chunks in between). A free
 * run right beside a neighbour (either side: a read fetches the pair in either order) is taken;
 * otherwise the caller allocates as usual. Only whole chunks of equal size are placed (a file's short last
 * chunk is not), so the neighbour's run and this one have the same order and the run is aligned.
 *
 * <p>Used by the write queue's single stage-2 thread: not thread-safe.
 */
final class NeighbourPlacement {
    private final ChunkIndex index;
    private final SpaceManager spaces;
    private static final int RECENT = 256;

    // The stage-2 thread's latest allocations by chunk key (their locations may still be pending).
    private final Map<Long, Allocation> recent = new LinkedHashMap<>(2 * RECENT, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Allocation> eldest) {
            return size() > RECENT;
        }
    };

    NeighbourPlacement(ChunkIndex index, SpaceManager spaces) {
        this.index = index;
        this.spaces = spaces;
    }

    /** A free run beside a neighbour of the chunk at {@code key}, taken; or null. */
    Allocation beside(long key, int length, int order) {
        if (Integer.bitCount(length) != 1) {
            return null;
        }
        int fileId = ChunkKeys.fileId(key);
        long position = ChunkKeys.position(key);
        int blocks = 1 << order;
        // The read takes a pair in either order: after the chunk before is best, then before it, and
        // likewise around the chunk after.
        Allocation previous = position >= length ? neighbour(ChunkKeys.key(fileId, position - length), length) : null;
        Allocation placed = take(previous, blocks, order);
        if (placed == null) {
            placed = take(previous, -blocks, order);
        }
        if (placed == null) {
            Allocation next = neighbour(ChunkKeys.key(fileId, position + length), length);
            placed = take(next, -blocks, order);
            if (placed == null) {
                placed = take(next, blocks, order);
            }
        }
        return placed;
    }

    /** Remembers the run just allocated for {@code key}: its neighbour may come soon. */
    void allocated(long key, Allocation allocation) {
        recent.put(key, allocation);
    }

    /** The run of the neighbour at {@code key} if it holds a whole chunk of {@code length} bytes; else null. */
    private Allocation neighbour(long key, int length) {
        if (key < 0) {
            return null;
        }
        Allocation allocated = recent.get(key);
        if (allocated != null) {
            return allocated.order() == ChunkLocation.order(length) ? allocated : null;
        }
        ChunkEntry entry = index.peek(key);
        long location = entry == null ? ChunkLocation.DEAD : entry.location();
        if (!ChunkLocation.isOnFlash(location) || ChunkLocation.length(location) != length) {
            return null;
        }
        return new Allocation(spaces.space(ChunkLocation.space(location)), ChunkLocation.lba(location),
                ChunkLocation.order(length));
    }

    private static Allocation take(Allocation neighbour, int offsetBlocks, int order) {
        if (neighbour == null) {
            return null;
        }
        AddressSpace space = neighbour.space();
        long lba = neighbour.lba() + offsetBlocks;
        return space.allocateAt(lba, order) ? new Allocation(space, lba, order) : null;
    }
}

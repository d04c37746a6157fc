package io.flashchunk.cache.space;

import io.flashchunk.cache.driver.StorageDriver;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The blocks of one flash device the cache may use, with its free lists (the paper's Address
 * Space). Free blocks live in a buddy allocator (the main free list). Blocks of entries evicted by
 * weight go to the temporary list when reuse must wait for a checkpoint: the last checkpoint may
 * still name them, and reusing them before the next one would let a crash bring back an entry
 * pointing at another chunk's bytes. A checkpoint retires the temporary list and, once durable,
 * releases the retired blocks to the main list.
 *
 * <p>Only runs a checkpoint names need to wait: the space remembers which runs the newest durable
 * checkpoint names (and which the one being written names so far), and frees every other run at
 * once. A chunk admitted and evicted between two checkpoints (the usual churn) never blocks a
 * writer. The decision and the naming happen under the same lock, after the entry is marked dead,
 * so a checkpoint either sees the entry dead or has named its run before the run is freed.
 */
public final class AddressSpace {
    private final int index;
    private final StorageDriver driver;
    private final long firstBlock;
    private final BuddyAllocator allocator;
    private final boolean deferReuseUntilCheckpoint;
    private final ReentrantLock lock = new ReentrantLock();
    private final LongStack temporary = new LongStack();
    private final LongStack retired = new LongStack();
    private long heldBlocks;
    // Run starts (relative to firstBlock) named by the newest durable checkpoint, and by the one
    // being written (null when none is).
    private java.util.BitSet named = new java.util.BitSet();
    private java.util.BitSet naming;
    private final LoadAverage reads = new LoadAverage();
    private final LoadAverage writes = new LoadAverage();

    /**
     * @param firstBlock  first device block of the data area
     * @param blocks      blocks in the data area
     * @param maxOrder    largest run, as a power of two of blocks
     */
    public AddressSpace(int index, StorageDriver driver, long firstBlock, long blocks, int maxOrder,
                        boolean deferReuseUntilCheckpoint) {
        if (blocks > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(driver.path() + ": a data area of " + blocks
                    + " blocks is more than one address space can hold (2^31 blocks, 8 TiB); lower its capacity");
        }
        if (firstBlock < 0 || firstBlock + blocks > driver.capacityBlocks()) {
            throw new IllegalArgumentException("data area of " + blocks + " blocks at block " + firstBlock
                    + " does not fit on " + driver.path() + " (" + driver.capacityBlocks() + " blocks)");
        }
        this.index = index;
        this.driver = driver;
        this.firstBlock = firstBlock;
        this.allocator = new BuddyAllocator(blocks, maxOrder);
        this.deferReuseUntilCheckpoint = deferReuseUntilCheckpoint;
    }

    public int index() {
        return index;
    }

    public StorageDriver driver() {
        return driver;
    }

    public long dataBlocks() {
        return allocator.blocks();
    }

    /** Allocates a run of {@code 2^order} blocks; returns its device LBA, or -1 when none is free. */
    public long allocate(int order) {
        lock.lock();
        try {
            long start = allocator.allocate(order);
            return start < 0 ? -1 : firstBlock + start;
        } finally {
            lock.unlock();
        }
    }


    /** Allocates the run at device {@code lba} if it is free; see {@link BuddyAllocator#allocateAt}. */
    public boolean allocateAt(long lba, int order) {
        lock.lock();
        try {
            return allocator.allocateAt(lba - firstBlock, order);
        } finally {
            lock.unlock();
        }
    }

    /** Returns a run to the main free list at once: no checkpoint names it. */
    public void release(long lba, int order) {
        lock.lock();
        try {
            allocator.free(lba - firstBlock, order);
        } finally {
            lock.unlock();
        }
    }

    /** Frees the run of an entry evicted by weight: at once, or after the next checkpoint. */
    public void releaseAfterCheckpoint(long lba, int order) {
        lock.lock();
        try {
            int start = (int) (lba - firstBlock);
            if (deferReuseUntilCheckpoint && (named.get(start) || (naming != null && naming.get(start)))) {
                temporary.push(RunCodec.encode(lba, order));
                heldBlocks += 1L << order;
            } else {
                allocator.free(lba - firstBlock, order);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * A checkpoint names the run at {@code lba} for {@code entryStillThere}, unless the entry died
     * meanwhile (then the checkpoint must leave it out). Returns whether it may record it.
     */
    public boolean name(long lba, java.util.function.BooleanSupplier entryStillThere) {
        lock.lock();
        try {
            if (naming == null || !entryStillThere.getAsBoolean()) {
                return false;
            }
            naming.set((int) (lba - firstBlock));
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Recovery, before anything is allocated: takes every block of the checkpoint just loaded (its
     * runs, relative to the first data block) in one step. The checkpoint is the newest durable one,
     * so its blocks count as named by it. Entries recovery then drops go back with {@link #release};
     * {@link #finishClaims} rebuilds the free lists, and allocation must wait until then.
     */
    public void claimRecovered(java.util.BitSet usedBlocks) {
        lock.lock();
        try {
            allocator.startBulkClaim(usedBlocks);
            // Every block, not only run starts: a superset, so at worst a run waits for one checkpoint more.
            named = (java.util.BitSet) usedBlocks.clone();
        } finally {
            lock.unlock();
        }
    }

    /** Recovery: every block not claimed becomes free. */
    public void finishClaims() {
        lock.lock();
        try {
            allocator.finishBulkClaim();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The checkpoint being written has become durable; or, {@code durable} false, it failed, and
     * since its header may have reached this device all the same (a failed flush does not undo a
     * write), the runs it named stay held along with those the last durable one names.
     */
    public void finishNaming(boolean durable) {
        lock.lock();
        try {
            if (naming != null) {
                if (durable) {
                    named = naming;
                } else {
                    named.or(naming);
                }
            }
            naming = null;
        } finally {
            lock.unlock();
        }
    }

    /** Checkpoint start: what was freed so far waits for this checkpoint to become durable. */
    public void retireTemporary() {
        lock.lock();
        try {
            naming = new java.util.BitSet();
            while (!temporary.isEmpty()) {
                retired.push(temporary.pop());
            }
        } finally {
            lock.unlock();
        }
    }

    /** Checkpoint durable: retired runs go back to the main free list. Returns the blocks released. */
    public long releaseRetired() {
        lock.lock();
        try {
            long released = 0;
            while (!retired.isEmpty()) {
                long run = retired.pop();
                int order = RunCodec.order(run);
                allocator.free(RunCodec.lba(run) - firstBlock, order);
                released += 1L << order;
            }
            heldBlocks -= released;
            return released;
        } finally {
            lock.unlock();
        }
    }

    public long freeBlocks() {
        lock.lock();
        try {
            return allocator.freeBlocks();
        } finally {
            lock.unlock();
        }
    }

    /** Blocks waiting in the temporary and retired lists. */
    public long heldBlocks() {
        lock.lock();
        try {
            return heldBlocks;
        } finally {
            lock.unlock();
        }
    }

    public long usedBlocks() {
        lock.lock();
        try {
            return allocator.blocks() - allocator.freeBlocks() - heldBlocks;
        } finally {
            lock.unlock();
        }
    }

    public LoadAverage reads() {
        return reads;
    }

    public LoadAverage writes() {
        return writes;
    }

    /** Reads plus writes per second, over about the last minute. */
    public double load() {
        return reads.perSecond() + writes.perSecond();
    }

    /** A run in a long: LBA in the high bits, order in the low five. */
    static final class RunCodec {
        private RunCodec() {
        }

        static long encode(long lba, int order) {
            return lba << 5 | order;
        }

        static long lba(long run) {
            return run >>> 5;
        }

        static int order(long run) {
            return (int) (run & 31);
        }
    }
}

package io.flashchunk.cache.space;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One logical cache space over the address spaces of all devices (the paper's Space Manager).
 * It places each new chunk: on the space with the least recent load (reads plus writes per second,
 * one-minute average), or, when loads are within {@value #BALANCED_LOAD_FRACTION} of each other, on
 * the space with the most free blocks. A writer that finds no free run waits for evictions to free
 * one; readers never come here.
 */
public final class SpaceManager {
    /** Loads closer than this fraction of the larger one count as balanced. */
    public static final double BALANCED_LOAD_FRACTION = 0.10;

    private final List<AddressSpace> spaces;
    private final ReentrantLock waitLock = new ReentrantLock();
    private final Condition runFreed = waitLock.newCondition();
    private final AtomicInteger waitingWriters = new AtomicInteger();
    private final double heldFractionForCheckpoint;
    private final Runnable checkpointWanted;

    public SpaceManager(List<AddressSpace> spaces) {
        this(spaces, 1.0, () -> { });
    }

    /**
     * @param heldFractionForCheckpoint when a space holds this fraction of its blocks for the next
     *                                  checkpoint, {@code checkpointWanted} runs (an early checkpoint
     *                                  gives them back)
     */
    public SpaceManager(List<AddressSpace> spaces, double heldFractionForCheckpoint, Runnable checkpointWanted) {
        if (spaces.isEmpty()) {
            throw new IllegalArgumentException("the cache needs at least one address space");
        }
        for (int i = 0; i < spaces.size(); i++) {
            if (spaces.get(i).index() != i) {
                throw new IllegalArgumentException("address space " + i + " has index " + spaces.get(i).index());
            }
        }
        this.spaces = List.copyOf(spaces);
        this.heldFractionForCheckpoint = heldFractionForCheckpoint;
        this.checkpointWanted = checkpointWanted;
    }

    public List<AddressSpace> spaces() {
        return spaces;
    }

    public AddressSpace space(int index) {
        return spaces.get(index);
    }

    /** A run allocated for one chunk. */
    public record Allocation(AddressSpace space, long lba, int order) {
    }

    /**
     * Allocates a run of {@code 2^order} blocks, waiting up to {@code maxWaitNanos} for one to be
     * freed. Returns null when none became free in time.
     */
    public Allocation allocate(int order, long maxWaitNanos) throws InterruptedException {
        Allocation allocation = tryAllocate(order);
        if (allocation != null || maxWaitNanos <= 0) {
            return allocation;
        }
        long deadline = System.nanoTime() + maxWaitNanos;
        if (spaces.stream().anyMatch(space -> space.heldBlocks() > 0)) {
            checkpointWanted.run(); // held blocks come back with the next checkpoint
        }
        waitLock.lock();
        waitingWriters.incrementAndGet();
        try {
            while (true) {
                allocation = tryAllocate(order);
                if (allocation != null) {
                    return allocation;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return null;
                }
                runFreed.awaitNanos(remaining);
            }
        } finally {
            waitingWriters.decrementAndGet();
            waitLock.unlock();
        }
    }

    /** Allocates on the best space without waiting; null when none has room. */
    public Allocation tryAllocate(int order) {
        for (AddressSpace space : byPreference()) {
            long lba = space.allocate(order);
            if (lba >= 0) {
                return new Allocation(space, lba, order);
            }
        }
        return null;
    }

    /** Spaces in the order new chunks should go to them. */
    List<AddressSpace> byPreference() {
        if (spaces.size() == 1) {
            return spaces;
        }
        double min = Double.MAX_VALUE;
        double max = 0;
        for (AddressSpace space : spaces) {
            min = Math.min(min, space.load());
            max = Math.max(max, space.load());
        }
        List<AddressSpace> ordered = new ArrayList<>(spaces);
        if (max - min > BALANCED_LOAD_FRACTION * max) {
            ordered.sort(Comparator.comparingDouble(AddressSpace::load));
        } else {
            ordered.sort(Comparator.comparingLong(AddressSpace::freeBlocks).reversed());
        }
        return ordered;
    }

    /** Frees a run no checkpoint names (explicit invalidation, a write that never became visible). */
    public void release(AddressSpace space, long lba, int order) {
        space.release(lba, order);
        signalWriters();
    }

    /** Frees the run of an entry evicted by weight (see {@link AddressSpace#releaseAfterCheckpoint}). */
    public void releaseAfterCheckpoint(AddressSpace space, long lba, int order) {
        space.releaseAfterCheckpoint(lba, order);
        signalWriters();
        if (space.heldBlocks() >= heldFractionForCheckpoint * space.dataBlocks()) {
            checkpointWanted.run();
        }
    }

    /** After a durable checkpoint: retired runs of every space back to the main lists. */
    public long releaseRetired() {
        long released = 0;
        for (AddressSpace space : spaces) {
            released += space.releaseRetired();
        }
        signalWriters();
        return released;
    }

    private void signalWriters() {
        if (waitingWriters.get() > 0) {
            waitLock.lock();
            try {
                runFreed.signalAll();
            } finally {
                waitLock.unlock();
            }
        }
    }

    /** Folds the reads and writes of the last {@code seconds} into every space's load average. */
    public void tickLoads(double seconds) {
        for (AddressSpace space : spaces) {
            space.reads().tick(seconds);
            space.writes().tick(seconds);
        }
    }

    /** The most and least loaded spaces, when their loads differ by more than {@code factor}; else null. */
    public AddressSpace[] imbalance(double factor, double minimumLoad) {
        AddressSpace[] sorted = spaces.toArray(AddressSpace[]::new);
        Arrays.sort(sorted, Comparator.comparingDouble(AddressSpace::load));
        AddressSpace coolest = sorted[0];
        AddressSpace hottest = sorted[sorted.length - 1];
        if (hottest == coolest || hottest.load() < minimumLoad || hottest.load() <= factor * coolest.load()) {
            return null;
        }
        return new AddressSpace[] {hottest, coolest};
    }
}

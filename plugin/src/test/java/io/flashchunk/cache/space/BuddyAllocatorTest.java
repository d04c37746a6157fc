package io.flashchunk.cache.space;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BuddyAllocatorTest {
    private record Run(long start, int order) {
    }

    @Test
    void randomAllocationsNeverOverlapAndEverythingMergesBack() {
        for (long blocks : new long[] {16, 1000, 4096, 12_345}) {
            BuddyAllocator allocator = new BuddyAllocator(blocks, 4);
            BitSet used = new BitSet();
            List<Run> live = new ArrayList<>();
            Random random = new Random(blocks);
            for (int step = 0; step < 50_000; step++) {
                if (live.isEmpty() || random.nextInt(100) < 55) {
                    int order = random.nextInt(5);
                    long start;
                    if (random.nextBoolean()) {
                        start = allocator.allocate(order);
                    } else {
                        // A chosen run (placement beside a neighbour): taken only when all of it is free.
                        long wanted = random.nextLong(blocks) & -(1L << order);
                        boolean free = wanted + (1L << order) <= blocks
                                && used.get((int) wanted, (int) (wanted + (1L << order))).isEmpty();
                        assertEquals(free, allocator.allocateAt(wanted, order), "run at " + wanted + " of order " + order);
                        start = free ? wanted : -1;
                    }
                    if (start < 0) {
                        continue;
                    }
                    assertEquals(0, start % (1L << order), "runs are aligned to their size");
                    assertTrue(start + (1L << order) <= blocks);
                    int from = (int) start;
                    int to = (int) (start + (1L << order));
                    assertTrue(used.get(from, to).isEmpty(), "run at " + start + " overlaps a live run");
                    used.set(from, to);
                    live.add(new Run(start, order));
                } else {
                    Run run = live.remove(random.nextInt(live.size()));
                    allocator.free(run.start(), run.order());
                    used.clear((int) run.start(), (int) (run.start() + (1L << run.order())));
                }
                assertEquals(blocks - used.cardinality(), allocator.freeBlocks());
            }
            for (Run run : live) {
                allocator.free(run.start(), run.order());
            }
            assertEquals(blocks, allocator.freeBlocks());
            if (blocks >= 16) {
                assertEquals(4, allocator.largestFreeOrder(), "free space merges back into the largest runs");
            }
        }
    }

    @Test
    void aChosenRunIsCutOutOfALargerFreeOneLeavingTheRestFree() {
        BuddyAllocator allocator = new BuddyAllocator(32, 4);
        assertTrue(allocator.allocateAt(20, 2), "blocks 20..23 lie in the free run 16..31");
        assertEquals(28, allocator.freeBlocks());
        assertFalse(allocator.allocateAt(20, 2), "taken now");
        assertFalse(allocator.allocateAt(16, 3), "overlaps the taken run");
        assertFalse(allocator.allocateAt(18, 2), "not aligned to its size");
        assertFalse(allocator.allocateAt(32, 0), "outside the space");
        assertTrue(allocator.allocateAt(16, 2));
        assertTrue(allocator.allocateAt(24, 3));
        assertEquals(0, allocator.allocate(4), "the untouched run 0..15 is still whole");
        assertEquals(-1, allocator.allocate(0), "everything is taken");
        allocator.free(20, 2);
        allocator.free(16, 2);
        allocator.free(24, 3);
        allocator.free(0, 4);
        assertEquals(4, allocator.largestFreeOrder(), "the pieces merge back");
        assertEquals(32, allocator.freeBlocks());
    }

    @Test
    void aRunIsCutFromOneTwiceItsSizeSoItsBuddyStaysFreeForItsNeighbour() {
        BuddyAllocator allocator = new BuddyAllocator(8, 3);
        assertEquals(0, allocator.allocate(0));
        assertEquals(2, allocator.allocate(0), "cut from the free pair 2..3, not the single block 1");
        assertTrue(allocator.allocateAt(1, 0), "block 0's buddy stayed free");
        assertTrue(allocator.allocateAt(3, 0), "block 2's buddy stayed free");
        assertEquals(4, allocator.allocate(0));
        assertEquals(6, allocator.allocate(0));
        long fifth = allocator.allocate(0);
        long sixth = allocator.allocate(0);
        assertEquals(java.util.Set.of(5L, 7L), java.util.Set.of(fifth, sixth), "leftover buddies, once no pair is left");
        assertEquals(-1, allocator.allocate(0));
    }

    @Test
    void exhaustionReturnsMinusOneAndFreeingMakesRoom() {
        BuddyAllocator allocator = new BuddyAllocator(64, 4);
        List<Long> runs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            runs.add(allocator.allocate(4));
        }
        assertEquals(-1, allocator.allocate(0));
        assertEquals(-1, allocator.largestFreeOrder());
        allocator.free(runs.get(2), 4);
        assertEquals(runs.get(2), allocator.allocate(4));
    }

    @Test
    void smallRunsSplitLargeOnesAndMergeWithTheirBuddies() {
        BuddyAllocator allocator = new BuddyAllocator(16, 4);
        long a = allocator.allocate(0);
        long b = allocator.allocate(0);
        assertEquals(0, a);
        assertEquals(2, b, "cut from a free pair: a's buddy stays free for its neighbour");
        assertFalse(allocator.largestFreeOrder() == 4);
        allocator.free(a, 0);
        allocator.free(b, 0);
        assertEquals(4, allocator.largestFreeOrder());
        assertEquals(16, allocator.freeBlocks());
    }

    @Test
    void aTailShorterThanTheLargestRunIsStillUsable() {
        BuddyAllocator allocator = new BuddyAllocator(21, 4); // 16 + 4 + 1
        assertEquals(21, allocator.freeBlocks());
        assertEquals(0, allocator.allocate(4));
        assertEquals(16, allocator.allocate(2));
        assertEquals(20, allocator.allocate(0));
        assertEquals(-1, allocator.allocate(0));
    }

    @Test
    void doubleFreesAndForeignRunsAreRefused() {
        BuddyAllocator allocator = new BuddyAllocator(64, 4);
        long run = allocator.allocate(2);
        allocator.free(run, 2);
        IllegalStateException twice = assertThrows(IllegalStateException.class, () -> allocator.free(run, 2));
        assertTrue(twice.getMessage().contains("double free"), twice.getMessage());
        IllegalArgumentException unaligned = assertThrows(IllegalArgumentException.class, () -> allocator.free(3, 2));
        assertTrue(unaligned.getMessage().contains("block 3"), unaligned.getMessage());
        assertThrows(IllegalArgumentException.class, () -> allocator.allocate(5));
        assertThrows(IllegalArgumentException.class, () -> new BuddyAllocator(0, 4));
    }

    @Test
    void aBulkClaimTakesExactlyTheClaimedBlocksAndFreesWhatIsGivenBack() {
        long blocks = 1000;
        BuddyAllocator allocator = new BuddyAllocator(blocks, 4);
        BitSet used = new BitSet();
        List<Run> runs = new ArrayList<>();
        Random random = new Random(3);
        for (long start = 0; start + 16 <= blocks; start += 16) {
            int order = random.nextInt(5);
            long run = start + (random.nextInt(16 >> order) << order);
            if (random.nextInt(3) > 0) {
                used.set((int) run, (int) (run + (1L << order)));
                runs.add(new Run(run, order));
            }
        }
        allocator.startBulkClaim(used);
        assertThrows(IllegalStateException.class, () -> allocator.startBulkClaim(used), "one bulk claim at a time");
        Run dropped = runs.remove(0);
        allocator.free(dropped.start(), dropped.order());
        used.clear((int) dropped.start(), (int) (dropped.start() + (1L << dropped.order())));
        assertThrows(IllegalStateException.class, () -> allocator.free(dropped.start(), dropped.order()),
                "a run given back twice");
        allocator.finishBulkClaim();
        assertEquals(blocks - used.cardinality(), allocator.freeBlocks());
        // Everything allocatable now lies outside the claimed runs.
        for (int order = 0; order <= 4; order++) {
            long start;
            while ((start = allocator.allocate(order)) >= 0) {
                assertTrue(used.get((int) start, (int) (start + (1L << order))).isEmpty(), "block " + start + " was claimed");
                used.set((int) start, (int) (start + (1L << order)));
            }
        }
        assertEquals(0, allocator.freeBlocks());
        for (Run run : runs) {
            allocator.free(run.start(), run.order());
        }
        assertEquals(runs.stream().mapToLong(run -> 1L << run.order()).sum(), allocator.freeBlocks());
    }

    @Test
    void aBulkClaimNeedsAnUntouchedAllocator() {
        BuddyAllocator allocator = new BuddyAllocator(64, 4);
        allocator.allocate(0);
        assertThrows(IllegalStateException.class, () -> allocator.startBulkClaim(new BitSet()));
        BitSet outside = new BitSet();
        outside.set(64);
        assertThrows(IllegalArgumentException.class, () -> new BuddyAllocator(64, 4).startBulkClaim(outside));
    }
}

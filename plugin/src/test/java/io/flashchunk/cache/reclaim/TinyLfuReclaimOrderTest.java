package io.flashchunk.cache.reclaim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TinyLfuReclaimOrderTest {
    @Test
    void offersNothingBeforeASegmentIsWrittenAndEachVictimOnce() {
        TinyLfuReclaimOrder order = new TinyLfuReclaimOrder(8, 6);
        assertEquals(-1, order.victim());
        order.written(3);
        order.written(5);
        Set<Integer> victims = new HashSet<>();
        victims.add(order.victim());
        victims.add(order.victim());
        assertEquals(Set.of(3, 5), victims);
        assertEquals(-1, order.victim());
        assertThrows(IllegalArgumentException.class, () -> new TinyLfuReclaimOrder(4, 5));
    }

    /**
     * Below its room (the writer dooms a batch at a time, ahead of it), Caffeine still chooses each
     * victim by its own eviction: segments read often are kept over ones never read.
     */
    @Test
    void aBatchTakenBelowTheRoomLeavesTheSegmentsReadOften() {
        TinyLfuReclaimOrder order = new TinyLfuReclaimOrder(16, 14);
        for (int segment = 0; segment < 8; segment++) {
            order.written(segment);
        }
        for (int i = 0; i < 10; i++) {
            order.read(0);
            order.read(1);
        }
        Set<Integer> batch = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            int victim = order.victim();
            assertTrue(victim >= 2 && batch.add(victim), "victim " + victim + " after " + batch);
        }
        order.written(8); // the room refills without an eviction
        order.written(9);
        order.written(10);
        order.written(11);
        Set<Integer> rest = new HashSet<>();
        for (int victim = order.victim(); victim != -1; victim = order.victim()) {
            assertTrue(rest.add(victim) && !batch.contains(victim), "victim " + victim);
        }
        assertEquals(8, rest.size(), "every other segment in the end: " + rest);
    }

    /** A read of a segment's previous use that ends after it was chosen does not count for its next use. */
    @Test
    void readsOfAnEarlierUseDoNotCarryOverToTheNextOne() {
        TinyLfuReclaimOrder order = new TinyLfuReclaimOrder(8, 6);
        for (int segment = 0; segment < 4; segment++) {
            order.written(segment);
        }
        int chosen = order.victim();
        for (int i = 0; i < 10; i++) {
            order.read(chosen); // reads in flight when it was chosen
        }
        assertEquals(10, order.readsBeforeWritten(chosen), "counted for a use not yet written");
        order.opened(chosen);
        assertEquals(0, order.readsBeforeWritten(chosen), "its new use starts with none");
        order.read(chosen);
        assertEquals(1, order.readsBeforeWritten(chosen), "reads of the new use while in memory count");
        order.written(chosen);
        assertEquals(0, order.readsBeforeWritten(chosen), "handed to Caffeine when written");
    }

    @Test
    void aSegmentTakenAheadOfItsTurnIsNeverAVictimAfterwards() {
        for (ReclaimOrder order : new ReclaimOrder[] {new TinyLfuReclaimOrder(8, 6), new FifoReclaimOrder()}) {
            for (int segment = 0; segment < 4; segment++) {
                order.written(segment);
            }
            order.read(2);
            assertTrue(order.take(2), order.getClass().getSimpleName());
            assertFalse(order.take(2), "taken once");
            assertFalse(order.take(6), "never written");
            Set<Integer> victims = new HashSet<>();
            for (int victim = order.victim(); victim != -1; victim = order.victim()) {
                victims.add(victim);
            }
            assertEquals(Set.of(0, 1, 3), victims, order.getClass().getSimpleName());
        }
    }

    /**
     * The coldest of the segments a predicate accepts (the engine's room for moves in one space) are
     * those the order would give up first among them, in that order, left in the order.
     */
    @Test
    void theColdestOfSomeSegmentsAreThoseTheOrderWouldGiveUpFirstAmongThem() {
        for (ReclaimOrder order : new ReclaimOrder[] {new TinyLfuReclaimOrder(8, 6), new FifoReclaimOrder()}) {
            String name = order.getClass().getSimpleName();
            for (int segment = 0; segment < 4; segment++) {
                order.written(segment);
            }
            for (int i = 0; i < 5; i++) {
                order.read(1); // older than 3, and read: the W-TinyLFU gives it up after 3, the FIFO before
            }
            boolean fifo = order instanceof FifoReclaimOrder;
            assertEquals(order.next(), order.coldest(segment -> true, 1)[0], name);
            int[] odd = fifo ? new int[] {1, 3} : new int[] {3, 1};
            assertArrayEquals(odd, order.coldest(segment -> segment % 2 == 1, 5), name);
            assertArrayEquals(new int[] {odd[0]}, order.coldest(segment -> segment % 2 == 1, 1), name + ": at most max");
            assertArrayEquals(new int[0], order.coldest(segment -> segment > 5, 1), name);
            assertTrue(order.take(odd[0]), name + ": left in the order");
            assertArrayEquals(new int[] {odd[1]}, order.coldest(segment -> segment % 2 == 1, 5), name);
        }
    }

    /** Writes segments, each read twice once written, and the favourite once a round if {@code readFavourite}. */
    private static void churn(TinyLfuReclaimOrder order, int favourite, boolean readFavourite, int rounds,
                              Set<Integer> free) {
        for (int round = 0; round < rounds; round++) {
            int next = free.iterator().next();
            free.remove(next);
            order.written(next);
            order.read(next);
            order.read(next);
            int victim = order.victim();
            assertNotEquals(favourite, victim, "round " + round);
            assertTrue(victim >= 0);
            assertTrue(free.add(victim), "segment " + victim + " offered twice");
            if (readFavourite) {
                order.read(favourite);
            }
        }
    }

    @Test
    void aSegmentReadOftenOutlivesSegmentsReadLess() {
        int segments = 100;
        TinyLfuReclaimOrder order = new TinyLfuReclaimOrder(segments, 90);
        for (int s = 0; s < 90; s++) {
            order.written(s);
        }
        for (int i = 0; i < 10; i++) {
            order.read(7);
        }
        Set<Integer> free = new HashSet<>();
        for (int s = 90; s < segments; s++) {
            free.add(s);
        }
        churn(order, 7, true, 500, free);
    }

    @Test
    void readsWhileASegmentIsInMemoryCountOnceItIsWritten() {
        int segments = 100;
        TinyLfuReclaimOrder order = new TinyLfuReclaimOrder(segments, 90);
        for (int s = 0; s < 60; s++) {
            order.written(s); // Caffeine counts reads once it is half full
        }
        for (int i = 0; i < 12; i++) {
            order.read(95); // in memory: counted when written
        }
        order.written(95);
        for (int s = 60; s < 89; s++) {
            order.written(s);
        }
        Set<Integer> free = new HashSet<>();
        for (int s = 89; s < segments; s++) {
            if (s != 95) {
                free.add(s);
            }
        }
        churn(order, 95, false, 150, free);
    }
}

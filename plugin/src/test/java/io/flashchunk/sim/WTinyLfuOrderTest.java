package io.flashchunk.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WTinyLfuOrderTest {
    @Test
    void aSegmentReadOftenOutlivesSegmentsNeverRead() {
        WTinyLfuOrder order = new WTinyLfuOrder(4);
        Set<Integer> sealed = new HashSet<>();
        for (int segment = 0; segment < 4; segment++) {
            order.sealed(segment);
            sealed.add(segment);
        }
        for (int i = 0; i < 20; i++) {
            order.hit(2);
        }
        for (int segment = 4; segment < 40; segment++) {
            order.hit(2); // still read as the others come and go
            int offered = order.next();
            assertTrue(sealed.contains(offered) && offered != 2, "offered " + offered);
            order.sealed(segment);
            sealed.add(segment);
            int victim = order.victim();
            assertNotEquals(2, victim, "sealing segment " + segment);
            assertTrue(sealed.remove(victim), "victim " + victim + " was sealed");
        }
    }

    @Test
    void readsOfTheOpenSegmentCountOnceItIsSealed() {
        WTinyLfuOrder order = new WTinyLfuOrder(4);
        for (int segment = 0; segment < 4; segment++) {
            order.sealed(segment); // never read
        }
        for (int i = 0; i < 14; i++) {
            order.hit(4); // open
        }
        order.sealed(4);
        order.victim(); // Caffeine's window keeps the newest segment; the next sealing puts 4 to the test
        order.sealed(5);
        assertNotEquals(4, order.victim(), "read 14 times while open, it must not lose to segments never read");
    }

    @Test
    void aBatchIsWhatCaffeineEvictsWhenItsBoundShrinksAndTheRoomRefillsWithoutEvicting() {
        WTinyLfuOrder order = new WTinyLfuOrder(4);
        for (int segment = 0; segment < 4; segment++) {
            order.sealed(segment);
        }
        for (int i = 0; i < 10; i++) {
            order.hit(0);
            order.hit(1);
        }
        order.sealed(4); // Caffeine evicts one
        int[] batch = order.victims(3);
        assertEquals(3, batch.length);
        java.util.Set<Integer> chosen = new java.util.HashSet<>();
        for (int segment : batch) {
            assertTrue(chosen.add(segment), "each once: " + java.util.Arrays.toString(batch));
        }
        assertFalse(chosen.contains(0) || chosen.contains(1), "the read segments stay: " + chosen);
        order.sealed(5);
        order.sealed(6); // back to the room of 4: no eviction yet
        assertEquals(0, order.victims(0).length);
        order.sealed(7);
        assertEquals(1, order.victims(1).length, "past the room again, Caffeine evicts one");
    }

    @Test
    void thereIsNoVictimWhileTheSealedSegmentsFit() {
        WTinyLfuOrder order = new WTinyLfuOrder(4);
        order.sealed(0);
        assertEquals(0, order.next(), "the only sealed segment is the coldest");
        assertThrows(IllegalStateException.class, order::victim);
    }
}

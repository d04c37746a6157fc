package io.flashchunk.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class WTinyLfuOrderTest {
    @Test
    void aSegmentReadOftenOutlivesSegmentsNeverRead() {
        WTinyLfuOrder order = new WTinyLfuOrder(4);
        for (int segment = 0; segment < 4; segment++) {
            order.sealed(segment);
        }
        for (int i = 0; i < 20; i++) {
            order.hit(2);
        }
        for (int segment = 4; segment < 40; segment++) {
            order.hit(2); // still read as the others come and go
            order.sealed(segment);
            int next = order.next();
            int victim = order.victim();
            assertNotEquals(2, victim, "sealing segment " + segment);
            assertEquals(next, victim, "next() names the victim before it is taken");
        }
    }

    @Test
    void thereIsNoVictimWhileTheSealedSegmentsFit() {
        WTinyLfuOrder order = new WTinyLfuOrder(4);
        order.sealed(0);
        assertEquals(0, order.next(), "the only sealed segment is the coldest");
        assertThrows(IllegalStateException.class, order::victim);
    }
}

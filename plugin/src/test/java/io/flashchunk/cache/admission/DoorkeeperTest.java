package io.flashchunk.cache.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DoorkeeperTest {
    @Test
    void aKeyAddedIsKeptUntilAClear() {
        Doorkeeper doorkeeper = new Doorkeeper(8 * 10_000);
        assertFalse(doorkeeper.mightContain(0), "an empty filter holds nothing");
        for (long key = 0; key < 10_000; key++) {
            doorkeeper.add(key * 7919);
        }
        for (long key = 0; key < 10_000; key++) {
            assertTrue(doorkeeper.mightContain(key * 7919), "key " + key);
            assertTrue(doorkeeper.add(key * 7919), "added again: it was there");
        }
        doorkeeper.clear();
        int kept = 0;
        for (long key = 0; key < 10_000; key++) {
            kept += doorkeeper.mightContain(key * 7919) ? 1 : 0;
        }
        assertEquals(0, kept, "a clear forgets every key");
    }

    @Test
    void keysNeverAddedAreRarelyTakenForAddedOnesAtEightBitsAKey() {
        Doorkeeper doorkeeper = new Doorkeeper(8 * 100_000);
        for (long key = 0; key < 100_000; key++) {
            doorkeeper.add(key);
        }
        int falsePositives = 0;
        for (long key = 1L << 40; key < (1L << 40) + 100_000; key++) {
            falsePositives += doorkeeper.mightContain(key) ? 1 : 0;
        }
        // Two hashes over 8 bits a key: (1 - e^(-2/8))^2 = 4.9% expected.
        assertTrue(falsePositives > 3_000 && falsePositives < 7_000, falsePositives + " of 100,000");
    }

    @Test
    void costsItsBitsRoundedUpToWholeLongs() {
        assertEquals(10_000_000L, new Doorkeeper(8 * 10_000_000L).bytes(), "8 bits a key: a byte");
        assertEquals(8, new Doorkeeper(1).bytes());
        assertEquals(16, new Doorkeeper(65).bytes());
    }
}

package io.flashchunk.cache.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FrequencySketchTest {
    @Test
    void countsReadsOfAKeyUpToFifteen() {
        FrequencySketch sketch = new FrequencySketch(1024);
        long key = (3L << 32) | 17;
        assertEquals(0, sketch.frequency(key));
        for (int i = 1; i <= 20; i++) {
            sketch.increment(key);
            assertEquals(Math.min(i, 15), sketch.frequency(key), "after " + i + " reads");
        }
    }

    @Test
    void keysReadOftenStandOutFromKeysReadOnce() {
        FrequencySketch sketch = new FrequencySketch(1 << 12);
        for (long key = 0; key < 4096; key++) {
            sketch.increment(key);
        }
        for (int round = 0; round < 5; round++) {
            for (long key = 1L << 40; key < (1L << 40) + 100; key++) {
                sketch.increment(key);
            }
        }
        int overestimated = 0;
        for (long key = 0; key < 4096; key++) {
            overestimated += sketch.frequency(key) > 1 ? 1 : 0;
        }
        assertTrue(overestimated < 41, overestimated + " of 4096 keys read once look read more often");
        for (long key = 1L << 40; key < (1L << 40) + 100; key++) {
            assertTrue(sketch.frequency(key) >= 5, "key " + key);
        }
    }

    @Test
    void oldReadsFadeByHalvesAfterTenReadsPerKey() {
        FrequencySketch sketch = new FrequencySketch(4); // 16 counters a row, halved after 40 reads
        for (int i = 0; i < 12; i++) {
            sketch.increment(1);
        }
        assertEquals(12, sketch.frequency(1));
        for (int i = 0; i < 28; i++) {
            sketch.increment(1000 + i % 2);
        }
        assertEquals(6, sketch.frequency(1), "halved at the 40th read");
    }

    @Test
    void aLongerMemoryHalvesLater() {
        FrequencySketch sketch = new FrequencySketch(4, 4, 0, 40); // halved after 160 reads, not 40
        for (int i = 0; i < 12; i++) {
            sketch.increment(1);
        }
        for (int i = 0; i < 147; i++) {
            sketch.increment(1000 + i % 2);
        }
        assertEquals(12, sketch.frequency(1), "159 reads: not halved yet");
        sketch.increment(1000);
        assertEquals(6, sketch.frequency(1), "halved at the 160th read");
    }

    @Test
    void costsEightBytesAKeyAsCaffeineOrTwoWithOneCounterARow() {
        assertEquals(8 * 1024, new FrequencySketch(1024).bytes());
        assertEquals(2 * 1024, new FrequencySketch(1024, 1).bytes());
        assertEquals(4 * 63 * 8, new FrequencySketch(1000, 1).bytes(), "rows rounded up to whole longs (16 counters) only");
        assertEquals(2 * 10_000_000L, new FrequencySketch(10_000_000, 1).bytes(), "2 bytes a key at 10 M");
    }

    @Test
    void aDoorkeeperTakesEachKeysFirstReadAndTheSketchTheRest() {
        FrequencySketch sketch = new FrequencySketch(1 << 12, 1, 8);
        for (long key = 0; key < 4096; key++) {
            sketch.increment(key);
        }
        // Only the doorkeeper's false positives (about 5% at 8 bits a key) reach the counters, 4 each.
        assertTrue(sketch.sumOfCounters() < 4 * 4096 * 8 / 100, sketch.sumOfCounters() + " counted of 4 x 4096 reads");
        assertEquals(1, sketch.frequency(17), "the doorkeeper's read counts");
        for (int i = 2; i <= 20; i++) {
            sketch.increment(17);
            assertEquals(Math.min(i, 16), sketch.frequency(17), "after " + i + " reads");
        }
    }

    @Test
    void aDoorkeeperIsClearedWhenTheCountersAreHalved() {
        FrequencySketch sketch = new FrequencySketch(4, 1, 8); // halved after 40 reads
        for (int i = 0; i < 12; i++) {
            sketch.increment(1);
        }
        assertEquals(12, sketch.frequency(1), "one read in the doorkeeper, eleven in the counters");
        for (int i = 0; i < 28; i++) {
            sketch.increment(1000 + i % 2);
        }
        assertEquals(5, sketch.frequency(1), "halved at the 40th read, and the doorkeeper's read forgotten");
    }

    @Test
    void aDoorkeeperKeepsKeysReadOnceFromLookingReadMoreOftenInASmallSketch() {
        int[] overestimated = new int[2];
        for (int doorkeeper = 0; doorkeeper < 2; doorkeeper++) {
            FrequencySketch sketch = new FrequencySketch(1 << 12, 1, doorkeeper * 8);
            for (long key = 0; key < 3 * 4096; key++) { // three times the keys the sketch is sized for
                sketch.increment(key);
            }
            for (long key = 0; key < 4096; key++) {
                overestimated[doorkeeper] += sketch.frequency(key) > 1 ? 1 : 0;
            }
        }
        assertTrue(overestimated[1] * 4 < overestimated[0], "keys read once that look read more often: "
                + overestimated[0] + " without a doorkeeper, " + overestimated[1] + " with one");
    }

    @Test
    void aDoorkeeperCostsItsBitsAKey() {
        assertEquals(3 * 10_000_000L, new FrequencySketch(10_000_000, 1, 8).bytes(), "2 bytes of counters, 1 of doorkeeper");
    }

    /**
     * Two threads count reads of one key at once, past 15: its four counters stop at 15 and no other
     * counter moves (a counter pushed past 15 would carry into its neighbour). The threads meet at a
     * spinning barrier each round, so that their increments overlap on both cores.
     */
    @Test
    void countersRacedByTwoThreadsNeverPassFifteenNorTouchTheirNeighbours() throws Exception {
        for (int round = 0; round < 3_000; round++) {
            FrequencySketch sketch = new FrequencySketch(1 << 10);
            long key = round * 7919L;
            AtomicInteger ready = new AtomicInteger();
            Runnable reads = () -> {
                ready.incrementAndGet();
                while (ready.get() < 2) {
                    Thread.onSpinWait();
                }
                for (int i = 0; i < 16; i++) {
                    sketch.increment(key);
                }
            };
            Thread other = new Thread(reads);
            other.start();
            reads.run();
            other.join();
            assertEquals(15, sketch.frequency(key), "round " + round);
            assertEquals(4 * 15, sketch.sumOfCounters(), "round " + round + ": only the key's four counters moved");
        }
    }
}

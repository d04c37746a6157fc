package io.flashchunk.sim;

import io.flashchunk.cache.reclaim.FifoReclaimOrder;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SegmentLogTest {
    private static final int CHUNK = 4096;

    /** Three segments of four chunks each. */
    private static SegmentLog log(int reinsertHits, double maxRetained) {
        return new SegmentLog(3 * 4 * CHUNK, 4 * CHUNK, new FifoReclaimOrder(), reinsertHits, maxRetained);
    }

    private static void admit(SegmentLog log, long from, long to) {
        for (long key = from; key < to; key++) {
            log.admit(key, CHUNK);
        }
    }

    @Test
    void theOldestSegmentGoesWholeWhenTheLogWraps() {
        SegmentLog log = log(Integer.MAX_VALUE, 0.5);
        admit(log, 0, 12); // fills all three segments
        assertEquals(12, log.chunks());
        log.admit(12, CHUNK); // the fourth segment's first chunk reclaims segment 0: keys 0-3
        for (long key = 0; key < 4; key++) {
            assertFalse(log.read(key), "key " + key);
        }
        for (long key = 4; key <= 12; key++) {
            assertTrue(log.read(key), "key " + key);
        }
        assertEquals(9, log.chunks());
        assertEquals(13 * CHUNK, log.writtenBytes());
        assertEquals(log.admittedBytes(), log.writtenBytes());
    }

    @Test
    void aBatchOfSegmentsIsReclaimedAtOnceAndWaitsForItsTurn() {
        SegmentLog log = new SegmentLog(3 * 4 * CHUNK, 4 * CHUNK, new FifoReclaimOrder(), Integer.MAX_VALUE, 0.5, 2, false);
        admit(log, 0, 12);
        log.admit(12, CHUNK); // reclaims segments 0 and 1 together: keys 0-7
        for (long key = 0; key < 8; key++) {
            assertFalse(log.read(key), "key " + key);
        }
        assertEquals(5, log.chunks());
        admit(log, 13, 17); // fills segment 0, then opens segment 1, reclaimed already: 8-11 stay
        for (long key = 8; key <= 16; key++) {
            assertTrue(log.read(key), "key " + key);
        }
        assertEquals(9, log.chunks());
        assertThrows(IllegalArgumentException.class,
                () -> new SegmentLog(3 * 4 * CHUNK, 4 * CHUNK, new FifoReclaimOrder(), 1, 0.5, 0, false));
    }

    @Test
    void aDoomedBatchServesItsChunksUntilEachSegmentIsReused() {
        SegmentLog log = new SegmentLog(3 * 4 * CHUNK, 4 * CHUNK, new FifoReclaimOrder(), Integer.MAX_VALUE, 0.5, 2, true);
        admit(log, 0, 12);
        log.admit(12, CHUNK); // dooms segments 0 and 1 together, reclaims 0 to hold key 12
        for (long key = 0; key < 4; key++) {
            assertFalse(log.read(key), "key " + key);
        }
        for (long key = 4; key <= 12; key++) {
            assertTrue(log.read(key), "key " + key + ": segment 1 is doomed, not reclaimed");
        }
        assertEquals(9, log.chunks());
        admit(log, 13, 17); // segment 1 is reused for key 16: now its chunks go
        for (long key = 4; key < 8; key++) {
            assertFalse(log.read(key), "key " + key);
        }
        assertEquals(9, log.chunks());
    }

    @Test
    void chunksReadSinceTheyWereWrittenAreRewrittenInTheReclaimedSegment() {
        SegmentLog log = log(1, 0.5);
        admit(log, 0, 12);
        assertTrue(log.read(1));
        log.admit(12, CHUNK);
        assertTrue(log.read(1), "read once, so kept");
        assertFalse(log.read(0));
        assertEquals(13 * CHUNK, log.admittedBytes());
        assertEquals(14 * CHUNK, log.writtenBytes(), "the kept chunk was written again");
    }

    @Test
    void aKeptChunkMustEarnItsPlaceAgain() {
        SegmentLog log = log(1, 0.5);
        admit(log, 0, 12);
        log.read(1);
        admit(log, 12, 15); // segment 0 reclaimed: 1 kept, then 12, 13, 14
        admit(log, 15, 24); // wraps around to segment 0 again, with no read of 1 since it was kept
        assertFalse(log.read(1));
    }

    @Test
    void keepsNoMoreThanItsShareOfASegment() {
        SegmentLog log = log(1, 0.5); // two of a segment's four chunks
        admit(log, 0, 12);
        for (long key = 0; key < 4; key++) {
            log.read(key);
        }
        log.admit(12, CHUNK);
        assertTrue(log.read(0));
        assertTrue(log.read(1));
        assertFalse(log.read(2));
        assertFalse(log.read(3));
    }

    @Test
    void keepsTheMostReadChunksFirst() {
        SegmentLog log = log(1, 0.5); // two of a segment's four chunks
        admit(log, 0, 12);
        log.read(0);
        log.read(2);
        log.read(2);
        log.read(3);
        log.read(3);
        log.read(3);
        log.admit(12, CHUNK);
        assertFalse(log.read(0));
        assertTrue(log.read(2));
        assertTrue(log.read(3));
    }

    @Test
    void aChunkWrittenAgainElsewhereOutlivesItsOldSegment() {
        SegmentLog log = log(Integer.MAX_VALUE, 0.5);
        admit(log, 0, 8); // segments 0 and 1
        log.admit(0, CHUNK); // key 0 again, now in segment 2
        admit(log, 100, 103); // segment 2 full
        log.admit(103, CHUNK); // reclaims segment 0, which holds key 0's stale copy
        assertTrue(log.read(0), "its copy in segment 2 stays");
        assertFalse(log.read(1));
    }

    @Test
    void samplesItsVictimFromTheSegmentReclaimedNextOnceEverySegmentWasUsed() {
        SegmentLog log = log(Integer.MAX_VALUE, 0.5);
        java.util.SplittableRandom random = new java.util.SplittableRandom(1);
        admit(log, 0, 8);
        assertEquals(SegmentLog.NO_VICTIM, log.victimSample(random), "segment 2 was never used");
        admit(log, 8, 9); // segment 2 opened: segment 0 goes next
        assertTrue(log.victimSample(random) < 4);
        admit(log, 9, 13); // segment 0 reclaimed: segment 1 goes next
        for (int i = 0; i < 20; i++) {
            long victim = log.victimSample(random);
            assertTrue(victim >= 4 && victim < 8, "victim " + victim);
        }
    }

    @Test
    void aChunkTakesWholeBlocks() {
        SegmentLog log = log(Integer.MAX_VALUE, 0.5);
        log.admit(1, 100);
        log.admit(2, CHUNK + 1);
        assertEquals(3L * CHUNK, log.admittedBytes());
    }

    @Test
    void refusesChunksLargerThanASegmentAndLogsOfOneSegment() {
        SegmentLog log = log(1, 0.5);
        assertThrows(IllegalArgumentException.class, () -> log.admit(1, 4 * CHUNK + 1));
        assertThrows(IllegalArgumentException.class,
                () -> new SegmentLog(4 * CHUNK, 4 * CHUNK, new FifoReclaimOrder(), 1, 0.5));
    }
}

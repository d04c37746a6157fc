package io.flashchunk.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.reclaim.FifoReclaimOrder;
import org.junit.jupiter.api.Test;

class AdmissionTest {
    private static final long VICTIM = 99;

    @Test
    void frequencyAdmissionWantsReadsLatelyOnceFlashIsFull() {
        FrequencyAdmission admission = new FrequencyAdmission(1024, 2);
        admission.accessed(1);
        assertTrue(admission.admit(1, SegmentLog.NO_VICTIM), "room never used: anything goes in");
        assertFalse(admission.admit(1, VICTIM));
        admission.accessed(1);
        assertTrue(admission.admit(1, VICTIM));
    }

    @Test
    void victimFrequencyAdmissionWantsMoreReadsThanTheChunkItDisplaces() {
        VictimFrequencyAdmission admission = new VictimFrequencyAdmission(1024, 4);
        admission.accessed(VICTIM);
        admission.accessed(VICTIM);
        admission.accessed(1);
        admission.accessed(1);
        assertFalse(admission.admit(1, VICTIM), "a tie keeps the victim");
        assertTrue(admission.admit(1, SegmentLog.NO_VICTIM));
        admission.accessed(1);
        assertTrue(admission.admit(1, VICTIM));
    }

    @Test
    void slotCountAdmissionWeighsACandidatesMissesAgainstTheVictimsHitsCountedInItsSlot() {
        SegmentLog log = new SegmentLog(4 << 20, 1 << 20, new FifoReclaimOrder(), 1, 0.045);
        SlotCountAdmission admission = new SlotCountAdmission(log, 1024, 0, 1000);
        log.admit(VICTIM, 4096);
        assertTrue(log.read(VICTIM));
        assertTrue(log.read(VICTIM));
        assertEquals(2, log.hitCount(VICTIM));
        admission.accessed(1); // a read is not counted until it misses
        assertFalse(admission.admit(1, VICTIM), "one miss against two hits");
        assertFalse(admission.admit(1, VICTIM), "a tie keeps the victim");
        assertTrue(admission.admit(1, VICTIM), "three misses beat two hits");
        assertTrue(admission.admit(2, SegmentLog.NO_VICTIM), "room never used: anything goes in");
        for (int i = 0; i < 5; i++) {
            log.read(VICTIM);
        }
        assertEquals(SegmentLog.MAX_HIT_COUNT, log.hitCount(VICTIM), "a slot's counter saturates");
        log.halveHitCounts();
        assertEquals(SegmentLog.MAX_HIT_COUNT / 2, log.hitCount(VICTIM));
        assertEquals(0, log.hitCount(12345), "a chunk not held has no hits");
    }

    @Test
    void slotCountAdmissionHalvesTheSlotCountersWhenItsSketchHalves() {
        SegmentLog log = new SegmentLog(4 << 20, 1 << 20, new FifoReclaimOrder(), 1, 0.045);
        // sized for 16 keys, halved after 2 misses a key: 32 misses
        SlotCountAdmission admission = new SlotCountAdmission(log, 16, 0, 2);
        log.admit(VICTIM, 4096);
        log.read(VICTIM);
        log.read(VICTIM);
        long often = 1000;
        for (int i = 0; i < 8; i++) {
            admission.admit(often, SegmentLog.NO_VICTIM);
        }
        for (long key = 1; key < 24; key++) {
            admission.admit(key, SegmentLog.NO_VICTIM);
        }
        assertEquals(2, log.hitCount(VICTIM), "31 misses: not yet");
        assertTrue(admission.missesLately(often) >= 8, "the sketch not yet halved either");
        admission.admit(32, SegmentLog.NO_VICTIM);
        assertEquals(1, log.hitCount(VICTIM), "the 32nd miss halves the sketch, and the slots with it");
        assertTrue(admission.missesLately(often) < 8, "the sketch halved on the same miss: "
                + admission.missesLately(often));
    }
}

package io.flashchunk.sim;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
}

package io.flashchunk.sim;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SecondMissAdmissionTest {
    @Test
    void admitsOnTheSecondMissAndForgetsTheKeyOnceAdmitted() {
        SecondMissAdmission admission = new SecondMissAdmission(100);
        assertFalse(admission.admit(7, SegmentLog.NO_VICTIM));
        assertFalse(admission.admit(8, SegmentLog.NO_VICTIM));
        assertTrue(admission.admit(7, SegmentLog.NO_VICTIM));
        assertFalse(admission.admit(7, SegmentLog.NO_VICTIM), "evicted from flash later, it must miss twice again");
        assertTrue(admission.admit(8, SegmentLog.NO_VICTIM));
    }
}

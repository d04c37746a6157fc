package io.flashchunk.cache.space;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SpaceReadsTest {
    @Test
    void aSpacesLoadIsItsReadsTimeAndAReadTimeoutForEachHitItRefused() {
        SpaceReads reads = new SpaceReads(2);
        reads.read(1, 3_000);
        reads.read(1, 0); // a clock that did not move: 1 ns
        reads.busy(1, 200_000_000);

        assertEquals(2, reads.count(1), "a refused hit is no read");
        assertEquals(3_001, reads.readNanos(1), "the reads' own time: a mean read time over count()");
        assertEquals(1, reads.refusals(1));
        assertEquals(200_003_001, reads.busyNanos(1), "the load places segments and moves chunks by");
        assertEquals(0, reads.busyNanos(0) + reads.count(0) + reads.refusals(0), "each space its own");
    }
}

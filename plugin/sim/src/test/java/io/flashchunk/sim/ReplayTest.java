package io.flashchunk.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ReplayTest {
    private static ChunkTrace trace(long... keys) {
        return new ChunkTrace("test", keys, null, 4096, 10 * 4096L);
    }

    @Test
    void theWarmUpFillsTheCacheAndIsNotCounted() {
        // keys 0-4 are read in the warm-up half, then again: every counted read hits
        Replay replay = Replay.run(trace(0, 1, 2, 3, 4, 0, 1, 2, 3, 4), new Design("today", ChunkWTinyLfu::new),
                0.75, 0.5); // today's index may fill 90% of the flash: 6 of 7.5 blocks
        assertEquals(5, replay.reads());
        assertEquals(1.0, replay.hitRatio());
        assertEquals(0.0, replay.writtenPerRead());
        assertEquals(30720L, replay.cacheBytes());
    }

    @Test
    void countsHitsAndTheBytesWrittenPerReadAfterTheWarmUp() {
        // after the warm-up (0, 1): 0 hits, 2 and 3 miss and are written
        Replay replay = Replay.run(trace(0, 1, 0, 2, 3, 1), new Design("today", ChunkWTinyLfu::new), 0.75,
                0.34);
        assertEquals(4, replay.reads());
        assertEquals(0.5, replay.hitRatio());
        assertEquals(0.5, replay.writtenPerRead());
        assertEquals(1.0, replay.writtenPerAdmitted());
    }
}

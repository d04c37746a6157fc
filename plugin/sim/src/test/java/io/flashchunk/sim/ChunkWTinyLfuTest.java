package io.flashchunk.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ChunkWTinyLfuTest {
    @Test
    void aChunkWeighsThePowerOfTwoRunOfBlocksTheAllocatorGivesIt() {
        assertEquals(1, ChunkWTinyLfu.runBlocks(1));
        assertEquals(1, ChunkWTinyLfu.runBlocks(4096));
        assertEquals(2, ChunkWTinyLfu.runBlocks(4097));
        assertEquals(4, ChunkWTinyLfu.runBlocks(12289));
        assertEquals(4, ChunkWTinyLfu.runBlocks(16384));
        assertEquals(8, ChunkWTinyLfu.runBlocks(16385));
    }

    @Test
    void everyMissIsWrittenAtItsRunsSize() {
        ChunkWTinyLfu cache = new ChunkWTinyLfu(1 << 20);
        assertFalse(cache.access(1, 5000));
        assertTrue(cache.access(1, 5000));
        assertFalse(cache.access(2, 16384));
        assertEquals((2 + 4) * 4096L, cache.admittedBytes());
        assertEquals(cache.admittedBytes(), cache.writtenBytes());
    }
}

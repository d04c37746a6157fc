package io.flashchunk.cache.reclaim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.files.ChunkKeys;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.index.ChunkLocations;
import org.junit.jupiter.api.Test;

/** The dead file sweep finds a file's chunks in an index that holds no keys, and only that file's. */
class DeadFileSweepTest {
    private static final long CHUNK = 65536;

    @Test
    void aDeadFilesChunksLeaveTheIndexAndNoOtherFilesDo() {
        ChunkIndex index = new ChunkIndex(10_000);
        ChunkLocations locations = new ChunkLocations(index);
        DeadFileSweep sweep = new DeadFileSweep(locations);
        long sector = 1;
        // File 7: every third chunk of 1,000 cached; file 8: all of its first 500, at the same positions.
        for (int i = 0; i < 1000; i += 3) {
            long key = ChunkKeys.key(7, i * CHUNK);
            locations.placed(key, RecordAddress.of(0, sector++));
            sweep.onFlash(key);
        }
        for (int i = 0; i < 500; i++) {
            long key = ChunkKeys.key(8, i * CHUNK);
            locations.placed(key, RecordAddress.of(0, sector++));
            sweep.onFlash(key);
        }
        assertEquals(334 + 500, index.entries());
        sweep.died(7);
        assertTrue(sweep.pending());
        int calls = 0;
        while (sweep.sweep(50)) {
            calls++;
        }
        // Its positions step by three chunks: 334 lookups, not one per 4 KiB up to the highest.
        assertEquals(6, calls, "334 lookups in calls of 50");
        assertEquals(334, sweep.removed());
        assertEquals(500, index.entries());
        for (int i = 0; i < 500; i++) {
            assertTrue(index.find(ChunkKeys.key(8, i * CHUNK)) != RecordAddress.NONE, "file 8's chunk " + i);
        }
        sweep.died(7);
        assertFalse(sweep.pending(), "a file is swept once");
    }

    @Test
    void aHugeFileDoesNotHoldUpTheFilesThatDieAfterIt() {
        ChunkIndex index = new ChunkIndex(1000);
        ChunkLocations locations = new ChunkLocations(index);
        DeadFileSweep sweep = new DeadFileSweep(locations);
        long huge = ChunkKeys.key(1, 1L << 40); // 1 TiB in, step 4 KiB with the chunk at 0: 2^28 lookups
        long first = ChunkKeys.key(1, 0);
        long small = ChunkKeys.key(2, 0);
        for (long key : new long[] {huge, first, small}) {
            locations.placed(key, RecordAddress.of(0, 1 + index.entries()));
            sweep.onFlash(key);
        }
        locations.placed(ChunkKeys.key(1, 4096), RecordAddress.of(0, 10));
        sweep.onFlash(ChunkKeys.key(1, 4096));
        sweep.died(1);
        sweep.died(2);
        assertTrue(sweep.sweep(100));
        assertTrue(sweep.sweep(100));
        assertEquals(RecordAddress.NONE, index.find(small), "the small file was swept on the second call");
        assertEquals(RecordAddress.NONE, index.find(first));
        assertTrue(index.find(huge) != RecordAddress.NONE, "the huge file's last chunk is still to come");
    }
}

package io.flashchunk.cache.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class ChunkLocationTest {
    @Test
    void onFlashLocationsRoundTrip() {
        Random random = new Random(7);
        for (int i = 0; i < 10_000; i++) {
            int space = random.nextInt(ChunkLocation.MAX_SPACES);
            long lba = random.nextLong() & ChunkLocation.MAX_LBA;
            int length = 1 + random.nextInt(ChunkLocation.MAX_LENGTH);
            int stamp = random.nextInt(ChunkLocation.STAMPS);
            long location = ChunkLocation.onFlash(space, lba, length, stamp);
            assertTrue(ChunkLocation.isOnFlash(location));
            assertFalse(ChunkLocation.isPending(location) || ChunkLocation.isDead(location));
            assertEquals(space, ChunkLocation.space(location));
            assertEquals(lba, ChunkLocation.lba(location));
            assertEquals(length, ChunkLocation.length(location));
            assertEquals(stamp, ChunkLocation.stamp(location));
        }
    }

    @Test
    void pendingAndDeadAreDistinctStates() {
        long pending = ChunkLocation.pending(65536);
        assertTrue(ChunkLocation.isPending(pending));
        assertFalse(ChunkLocation.isOnFlash(pending) || ChunkLocation.isDead(pending));
        assertEquals(65536, ChunkLocation.length(pending));
        assertTrue(ChunkLocation.isDead(ChunkLocation.DEAD));
        assertFalse(ChunkLocation.isPending(ChunkLocation.DEAD) || ChunkLocation.isOnFlash(ChunkLocation.DEAD));
    }

    @Test
    void aMoveChangesTheStampEvenBackToTheSameLba() {
        long at = ChunkLocation.onFlash(0, 100, 16384, 5);
        long away = ChunkLocation.moved(at, 1, 200);
        long back = ChunkLocation.moved(away, 0, 100);
        assertEquals(6, ChunkLocation.stamp(away));
        assertNotEquals(at, back, "the version stamp tells the old place from the same place later");
        assertEquals(16384, ChunkLocation.length(back));
    }

    @Test
    void ordersArePowersOfTwoOfBlocks() {
        assertEquals(0, ChunkLocation.order(1));
        assertEquals(0, ChunkLocation.order(4096));
        assertEquals(1, ChunkLocation.order(4097));
        assertEquals(2, ChunkLocation.order(12288));
        assertEquals(2, ChunkLocation.order(16384));
        assertEquals(4, ChunkLocation.order(65536));
    }

    @Test
    void outOfRangeValuesAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ChunkLocation.onFlash(0, 1, 65537, 0));
        assertTrue(e.getMessage().contains("65537"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ChunkLocation.onFlash(64, 1, 1, 0));
        assertTrue(e.getMessage().contains("space 64"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ChunkLocation.onFlash(0, -1, 1, 0));
        assertTrue(e.getMessage().contains("LBA -1"), e.getMessage());
    }

    @Test
    void keysKeepFileAndPositionAndRejectUnalignedPositions() {
        long key = ChunkKeys.key(123_456, 65536L * 1000);
        assertEquals(123_456, ChunkKeys.fileId(key));
        assertEquals(65536L * 1000, ChunkKeys.position(key));
        assertEquals(-1, ChunkKeys.key(1, 100));
        assertEquals(-1, ChunkKeys.key(1, ChunkKeys.MAX_POSITION + 4096));
        assertEquals(ChunkKeys.MAX_POSITION, ChunkKeys.position(ChunkKeys.key(1, ChunkKeys.MAX_POSITION)));
    }
}

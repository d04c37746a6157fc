package io.flashchunk.cache.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RecoveredEntriesTest {
    private static long location(long lba, int length) {
        return ChunkLocation.onFlash(0, lba, length, 0);
    }

    @Test
    void findsEveryEntryAddedAndNoOther() {
        RecoveredEntries table = new RecoveredEntries(50_000);
        Map<Long, Long> expected = new HashMap<>();
        SplittableRandom random = new SplittableRandom(7);
        long blocks = 0;
        while (expected.size() < 50_000) {
            // Small file ids and chunk indexes, as Cassandra's are: the hash must spread them.
            long key = ChunkKeys.key(1 + random.nextInt(30), random.nextInt(4000) * 4096L);
            long location = location(1000 + expected.size() * 4L, 16384);
            boolean added = table.add(key, location, (int) key);
            assertEquals(!expected.containsKey(key), added, "a key is added once");
            if (added) {
                expected.put(key, location);
                blocks += 4;
            }
        }
        assertEquals(50_000, table.entries());
        assertEquals(blocks, table.blocks());
        expected.forEach((key, location) -> {
            int slot = table.find(key);
            assertTrue(slot >= 0);
            assertEquals(key, table.key(slot));
            assertEquals(location, table.location(slot));
            assertEquals((int) (long) key, table.crc(slot));
        });
        assertEquals(-1, table.find(ChunkKeys.key(31, 0)));
        int live = 0;
        for (int slot = 0; slot < table.slots(); slot++) {
            live += ChunkLocation.isDead(table.location(slot)) ? 0 : 1;
        }
        assertEquals(50_000, live, "iterating the slots meets every entry once");
    }

    @Test
    void anEntryIsTakenOnceAndThenIsGone() {
        RecoveredEntries table = new RecoveredEntries(4);
        long key = ChunkKeys.key(3, 8192);
        long location = location(500, 4096);
        assertTrue(table.add(key, location, 42));
        int slot = table.find(key);
        assertFalse(table.take(slot, location(501, 4096)), "only at the location it has");
        assertTrue(table.take(slot, location));
        assertFalse(table.take(slot, location), "a second taker loses");
        assertEquals(-1, table.find(key));
        assertTrue(ChunkLocation.isDead(table.location(slot)));
        assertEquals(0, table.entries());
        assertEquals(0, table.blocks());
    }

    @Test
    void refusesMoreThanItsCapacityAndNonEntries() {
        RecoveredEntries table = new RecoveredEntries(2);
        table.add(ChunkKeys.key(1, 0), location(100, 4096), 0);
        table.add(ChunkKeys.key(1, 4096), location(101, 4096), 0);
        assertThrows(IllegalStateException.class, () -> table.add(ChunkKeys.key(1, 8192), location(102, 4096), 0));
        assertThrows(IllegalArgumentException.class, () -> new RecoveredEntries(4).add(0, location(1, 4096), 0));
        assertThrows(IllegalArgumentException.class,
                () -> new RecoveredEntries(4).add(ChunkKeys.key(1, 0), ChunkLocation.DEAD, 0));
    }
}

package io.flashchunk.cache.index;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.files.ChunkKeys;
import io.flashchunk.cache.format.RecordAddress;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Each segment's live chunks, counted through {@link ChunkLocations}, against a count of the index itself. */
class SegmentEntriesTest {
    private static final int SEGMENTS = 16;
    private static final int SECTORS_PER_SEGMENT = 1000;

    private static int segmentOf(long address) {
        return (int) ((RecordAddress.sector(address) - 1) / SECTORS_PER_SEGMENT);
    }

    private static long address(int segment, int sector) {
        return RecordAddress.of(0, 1 + (long) segment * SECTORS_PER_SEGMENT + sector); // sector 0 is no address
    }

    private static long key(int i) {
        return ChunkKeys.key(1 + i / 64, (long) (i % 64) * 16384);
    }

    /** What the index holds per segment, counted from its slots. */
    private static int[] countedFrom(ChunkIndex index) {
        int[] counted = new int[SEGMENTS];
        index.forEachSlot((bucket, slot) -> counted[segmentOf(ChunkIndex.address(slot))]++);
        return counted;
    }

    private static int[] live(SegmentEntries entries) {
        int[] live = new int[SEGMENTS];
        for (int s = 0; s < SEGMENTS; s++) {
            live[s] = entries.live(s);
        }
        return live;
    }

    @Test
    void liveChunksStayExactThroughPutsOverwritesDisplacementsAndRemovals() {
        // A small index, over-filled: puts displace other keys' entries, as a full cache's do.
        ChunkIndex index = new ChunkIndex(600);
        SegmentEntries entries = new SegmentEntries(SEGMENTS, SegmentEntriesTest::segmentOf);
        ChunkLocations locations = new ChunkLocations(index, entries);
        SplittableRandom random = new SplittableRandom(7);
        int[] nextSector = new int[SEGMENTS];
        long displaced = 0;
        boolean[] emptied = new boolean[SEGMENTS];
        for (int step = 0; step < 40_000; step++) { // 28,000 placements: every segment reused
            int op = random.nextInt(10);
            int k = random.nextInt(1500);
            if (op < 7) {
                int segment = random.nextInt(SEGMENTS);
                if (nextSector[segment] == SECTORS_PER_SEGMENT) {
                    // The segment is reclaimed and reused: whatever still points there goes first.
                    locations.droppedWhere(a -> segmentOf(a) == segment);
                    entries.emptied(segment);
                    emptied[segment] = true;
                    assertEquals(0, entries.records(segment), "a reclaimed segment holds no dead record");
                    entries.opened(segment);
                    nextSector[segment] = 0;
                }
                displaced += locations.placed(key(k), address(segment, nextSector[segment]++)) != RecordAddress.NONE ? 1 : 0;
            } else if (op < 9) {
                locations.forget(key(k));
            } else {
                long at = index.find(key(k));
                if (at != RecordAddress.NONE) {
                    assertTrue(locations.dropped(key(k), at));
                }
            }
        }
        assertTrue(displaced > 1000, "the test must overwrite and displace entries: " + displaced);
        assertArrayEquals(countedFrom(index), live(entries));
        assertEquals(index.entries(), entries.liveTotal());
        int segmentsReused = 0;
        long records = 0;
        for (int s = 0; s < SEGMENTS; s++) {
            assertEquals(nextSector[s], entries.records(s), "segment " + s + "'s records: those of its current use");
            records += nextSector[s];
            segmentsReused += emptied[s] ? 1 : 0;
        }
        assertTrue(segmentsReused > 0, "the test must reclaim and reuse segments");
        assertEquals(records - index.entries(), entries.deadRecords(), "dead: records the index no longer points at");
    }

    @Test
    void aSegmentIsQueuedOnceItsLiveChunksFallToAQuarterOfItsRecords() {
        ChunkIndex index = new ChunkIndex(1000);
        SegmentEntries entries = new SegmentEntries(SEGMENTS, SegmentEntriesTest::segmentOf);
        ChunkLocations locations = new ChunkLocations(index, entries);
        for (int i = 0; i < 8; i++) {
            locations.placed(key(i), address(3, i));
        }
        for (int i = 0; i < 5; i++) {
            locations.forget(key(i));
            assertFalse(entries.isMostlyDead(3), (i + 1) + " of 8 gone");
            assertEquals(-1, entries.takeMostlyDead(), "nothing queued with " + (8 - i - 1) + " of 8 live");
        }
        locations.forget(key(5)); // 2 of 8 live: a quarter
        assertTrue(entries.isMostlyDead(3));
        assertEquals(3, entries.takeMostlyDead());
        assertEquals(-1, entries.takeMostlyDead(), "queued once");
        locations.forget(key(6));
        assertEquals(-1, entries.takeMostlyDead(), "not queued again once past the line");
        assertEquals(-1, entries.takeEmpty(), "one live chunk left: not empty");
        locations.forget(key(7));
        assertTrue(entries.isEmpty(3));
        entries.queue(3); // as the reclaimer does when its write ends: found again
        assertEquals(3, entries.takeEmpty(), "queued apart once none is live");
        assertEquals(-1, entries.takeEmpty(), "queued once");
        entries.queue(3);
        entries.opened(3); // reclaimed and reused before the reclaimer took it
        assertFalse(entries.isEmpty(3), "a new use has no records");
        locations.placed(key(8), address(3, 0));
        assertEquals(-1, entries.takeEmpty(), "a segment reused since it was queued is not given as empty");
        assertFalse(entries.isMostlyDead(3), "one live of one");
        assertEquals(1, entries.live(3));
    }

    @Test
    void afterRecoveryTheIndexIsCountedAndEachSummaryNamesTheRecords() {
        ChunkIndex index = new ChunkIndex(1000);
        ChunkLocations recovery = new ChunkLocations(index); // recovery's: counts nothing
        for (int i = 0; i < 10; i++) {
            recovery.placed(key(i), address(i < 8 ? 2 : 5, i));
        }
        SegmentEntries entries = new SegmentEntries(SEGMENTS, SegmentEntriesTest::segmentOf);
        entries.count(index);
        assertEquals(8, entries.live(2));
        assertEquals(2, entries.live(5));
        assertEquals(10, entries.liveTotal());
        entries.recordsAre(2, 9); // one of its records had been overwritten before the restart
        assertFalse(entries.isMostlyDead(2));
        assertEquals(1, entries.deadRecords(), "the overwritten record of segment 2");
        entries.recordsAre(5, 8); // six of its eight records had left the index
        assertTrue(entries.isMostlyDead(5));
        assertEquals(5, entries.takeMostlyDead());
        assertEquals(-1, entries.takeEmpty(), "two of its records live");
        assertEquals(7, entries.deadRecords());
        recovery.dropped(key(8), address(5, 8)); // reclaim: both live records leave, then the segment is emptied
        recovery.dropped(key(9), address(5, 9));
        entries.count(index);
        entries.recordsAre(2, 9);
        entries.recordsAre(5, 8);
        assertEquals(5, entries.takeEmpty(), "a recovered segment of whose records none is live");
        assertEquals(1 + 8, entries.deadRecords());
        entries.emptied(5);
        assertEquals(1, entries.deadRecords(), "an emptied segment's records hold no flash");
    }
}

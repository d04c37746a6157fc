package io.flashchunk.cache.space;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SegmentTableTest {
    private static int durable(SegmentTable table, int space) {
        int segment = table.open(space);
        table.seal(segment);
        table.written(segment);
        return segment;
    }

    @Test
    void eachUseOfASegmentHasAHigherSequence() {
        SegmentTable table = new SegmentTable(3, 3);
        int a = table.open(1);
        int b = table.open(1);
        assertEquals(1, table.space(a));
        assertTrue(table.sequence(b) > table.sequence(a));
        assertEquals(SegmentState.OPEN, table.state(a));
        assertEquals(1, table.freeSegments(1));
        assertEquals(3, table.freeSegments(0));
        table.open(1);
        assertEquals(-1, table.open(1), "space 1 has no free segment left");
    }

    @Test
    void numbersTheSegmentsOfSpacesOfDifferentSizesInTurn() {
        SegmentTable table = new SegmentTable(3, 5);
        assertEquals(8, table.segments());
        assertEquals(2, table.spaces());
        assertEquals(5, table.segment(1, 2));
        assertEquals(1, table.space(5));
        assertEquals(2, table.index(5));
        assertEquals(0, table.space(2));
        assertEquals(5, table.freeSegments(1));
        assertEquals(1, table.space(table.open(1)));
        assertThrows(IllegalArgumentException.class, () -> new SegmentTable(3, 0));
    }

    @Test
    void readsStartOnlyInSegmentsFillingSealedOnFlashOrDoomed() {
        Set<SegmentState> readable = EnumSet.noneOf(SegmentState.class);
        for (SegmentState state : SegmentState.values()) {
            if (state.readable()) {
                readable.add(state);
            }
        }
        assertEquals(EnumSet.of(SegmentState.OPEN, SegmentState.SEALED, SegmentState.DURABLE, SegmentState.DOOMED),
                readable);
    }

    @Test
    void aReclaimedSegmentIsReusedOnlyAfterACheckpointStartedLaterIsDurable() {
        SegmentTable table = new SegmentTable(2);
        int segment = durable(table, 0);
        long firstUse = table.sequence(segment);
        long named = table.checkpointStarted(); // this checkpoint's copy may name the segment
        table.startReclaim(segment);
        assertTrue(table.finishReclaim(segment));
        assertEquals(SegmentState.RETIRED, table.state(segment));
        assertEquals(0, table.checkpointDurable(named), "the durable checkpoint may still name it");
        assertEquals(1, table.freeSegments(0));
        long after = table.checkpointStarted();
        assertEquals(1, table.checkpointDurable(after));
        assertEquals(SegmentState.FREE, table.state(segment));
        assertEquals(2, table.freeSegments(0));
        table.open(0);
        int reused = table.open(0);
        assertEquals(segment, reused);
        assertTrue(table.sequence(reused) > firstUse);
    }

    /**
     * With discards on in a space, every free segment of it and each freed later is discarded before it
     * may be opened: not readable, not opened, until its discard ended; nothing a durable checkpoint
     * may name is handed out to be discarded; a space without discards frees at once.
     */
    @Test
    void aFreedSegmentIsDiscardedBeforeItMayBeOpenedAgain() throws Exception {
        SegmentTable table = new SegmentTable(3, 2);
        int kept = durable(table, 0);
        table.discardFreed(new boolean[] {true, false});
        assertEquals(0, table.freeSegments(0), "the free segments are discarded first");
        assertEquals(2, table.freeSegments(1), "a space without discards keeps its free segments");
        assertEquals(2, table.discarding());
        assertEquals(-1, table.open(0), "no segment opens while every free one is being discarded");
        int first = table.awaitToDiscard(0);
        int second = table.awaitToDiscard(0);
        assertEquals(SegmentState.DISCARDING, table.state(first));
        assertEquals(-1, table.pin(first), "a segment being discarded is not read");
        table.discardEnded(first);
        assertEquals(SegmentState.FREE, table.state(first));
        assertEquals(first, table.open(0));
        assertEquals(1, table.discarding(0), "the other is still being discarded");
        assertThrows(IllegalStateException.class, () -> table.discardEnded(first), "an open segment is not being discarded");

        // A segment reclaimed while a durable checkpoint may name it is retired, then discarded only
        // once a later checkpoint is durable.
        long named = table.checkpointStarted();
        table.startReclaim(kept);
        assertTrue(table.finishReclaim(kept));
        assertEquals(SegmentState.RETIRED, table.state(kept));
        table.checkpointDurable(named);
        assertEquals(SegmentState.RETIRED, table.state(kept), "the durable checkpoint may still name it");
        table.checkpointDurable(table.checkpointStarted());
        assertEquals(SegmentState.DISCARDING, table.state(kept));
        assertEquals(2, table.discarding(0));

        // A device that cannot discard: the segments waiting are freed at once, and later ones too.
        table.stopDiscarding(0);
        assertEquals(SegmentState.FREE, table.state(kept));
        assertEquals(SegmentState.DISCARDING, table.state(second), "the one taken ends by its thread");
        table.discardEnded(second);
        assertEquals(0, table.discarding());
        assertEquals(2, table.freeSegments(0));
        assertTrue(!table.discardsAny());

        // Stopped: a discarding thread waiting for work is let go.
        SegmentTable other = new SegmentTable(1);
        other.discardFreed(new boolean[] {true});
        assertEquals(0, other.awaitToDiscard(0));
        AtomicLong taken = new AtomicLong(Long.MIN_VALUE);
        Thread waiting = new Thread(() -> {
            try {
                taken.set(other.awaitToDiscard(0));
            } catch (InterruptedException e) {
                taken.set(Long.MAX_VALUE);
            }
        });
        waiting.start();
        other.stopDiscards();
        waiting.join(10_000);
        assertEquals(-1, taken.get(), "a stopped table hands out nothing");
    }

    @Test
    void aDoomedSegmentServesUntilALaterCheckpointReleasesItAndIsFreeOnceReclaimed() {
        SegmentTable table = new SegmentTable(3);
        int segment = durable(table, 0);
        long named = table.checkpointStarted(); // this checkpoint's copy may name the segment
        table.doom(segment);
        assertEquals(SegmentState.DOOMED, table.state(segment));
        assertEquals(table.sequence(segment), table.pin(segment), "a doomed segment is still read");
        table.unpin(segment);
        assertEquals(1, table.waitingForCheckpoint());
        SegmentTable.Named next = table.startCheckpoint();
        assertFalse(next.names(segment, 0), "no checkpoint starting after the doom names it");
        assertThrows(IllegalStateException.class, () -> table.startReclaim(segment), "not released yet");
        assertEquals(0, table.checkpointDurable(named), "the durable checkpoint may still name it");
        assertEquals(0, table.releasedSegments(0));
        assertEquals(1, table.checkpointDurable(next.epoch()));
        assertEquals(0, table.waitingForCheckpoint());
        assertEquals(1, table.releasedSegments(0));
        assertEquals(SegmentState.DOOMED, table.state(segment), "released, it serves until it is reclaimed");

        assertEquals(segment, table.takeReleased(0));
        assertEquals(-1, table.takeReleased(0));
        long pinned = table.pin(segment);
        table.startReclaim(segment);
        assertEquals(-1, table.pin(segment), "no new reads once reclaimed");
        assertFalse(table.finishReclaim(segment), "a read in flight holds it");
        assertTrue(pinned > 0);
        table.unpin(segment);
        int free = table.freeSegments(0);
        assertTrue(table.finishReclaim(segment));
        assertEquals(SegmentState.FREE, table.state(segment), "free at once: no durable checkpoint names it");
        assertEquals(free + 1, table.freeSegments(0));

        int other = durable(table, 0);
        table.startReclaim(other);
        assertTrue(table.finishReclaim(other));
        assertEquals(SegmentState.RETIRED, table.state(other), "reclaimed without a doom, it waits as before");
    }

    @Test
    void countsTheSegmentsOfEachSpaceInEachStateThroughEveryChange() {
        SegmentTable table = new SegmentTable(3, 2);
        assertCounts(table, 0, 3, 0, 0, 0);
        assertCounts(table, 1, 2, 0, 0, 0);
        int segment = table.open(1);
        assertCounts(table, 1, 1, 1, 0, 0);
        table.seal(segment);
        table.written(segment);
        assertCounts(table, 1, 1, 0, 1, 0);
        long named = table.checkpointStarted();
        table.startReclaim(segment);
        assertTrue(table.finishReclaim(segment));
        assertCounts(table, 1, 1, 0, 0, 1);
        table.checkpointDurable(table.checkpointStarted());
        assertTrue(named < table.checkpointStarted());
        assertCounts(table, 1, 2, 0, 0, 0);
        assertCounts(table, 0, 3, 0, 0, 0);
    }

    /** Free, open, durable and retired segments of {@code space}; every other state none. */
    private static void assertCounts(SegmentTable table, int space, int free, int open, int durable, int retired) {
        assertEquals(free, table.count(space, SegmentState.FREE), "free in space " + space);
        assertEquals(open, table.count(space, SegmentState.OPEN), "open in space " + space);
        assertEquals(durable, table.count(space, SegmentState.DURABLE), "durable in space " + space);
        assertEquals(retired, table.count(space, SegmentState.RETIRED), "retired in space " + space);
        int all = 0;
        for (SegmentState state : SegmentState.values()) {
            all += table.count(space, state);
        }
        assertEquals(table.segmentsIn(space), all, "every segment of space " + space + " counted once");
    }

    @Test
    void aCheckpointNamesOnlyDurableSegmentsWithTheirUse() {
        SegmentTable table = new SegmentTable(3, 3);
        int durable = durable(table, 0);
        int open = table.open(0);
        int sealed = table.open(1);
        table.seal(sealed);
        int reclaiming = durable(table, 1);
        table.startReclaim(reclaiming);
        SegmentTable.Named named = table.startCheckpoint();
        long[] expected = new long[6];
        expected[durable] = table.sequence(durable);
        assertArrayEquals(expected, named.sequences(), "open " + open + ", sealed " + sealed + ", reclaiming "
                + reclaiming + " are not named");
        assertTrue(table.finishReclaim(reclaiming));
        assertEquals(0, table.checkpointDurable(named.epoch()), "retired while the checkpoint ran: it waits");
    }

    @Test
    void aCheckpointNamesTheWrittenPartOfAnOpenSegmentUntilItsNextUse() {
        SegmentTable table = new SegmentTable(2);
        int durable = durable(table, 0);
        int open = table.open(0);
        table.prefixWritten(open, 40);
        SegmentTable.Named named = table.startCheckpoint();
        assertEquals(table.sequence(open), named.sequences()[open]);
        assertTrue(named.names(open, 39) && !named.names(open, 40), "only the written sectors");
        assertTrue(named.names(durable, Integer.MAX_VALUE - 1), "all of a durable segment");
        assertThrows(IllegalStateException.class, () -> table.prefixWritten(open, 39), "it only grows");
        table.prefixWritten(open, 90);
        table.seal(open);
        assertThrows(IllegalStateException.class, () -> table.prefixWritten(open, 100), "sealed");
        SegmentTable.Named namingIt = table.startCheckpoint();
        assertTrue(namingIt.names(open, 89), "sealed, its written part is still named");
        table.abandon(open);
        assertFalse(table.startCheckpoint().names(open, 0), "abandoned (its write failed): not named");
        assertTrue(table.finishReclaim(open));
        assertEquals(0, table.checkpointDurable(namingIt.epoch()), "a checkpoint that named it does not free it");
        assertEquals(1, table.checkpointDurable(table.checkpointStarted()), "a later one does");
        int reused = table.open(0);
        assertEquals(open, reused);
        assertFalse(table.startCheckpoint().names(reused, 0), "a new use starts with nothing written");
    }

    @Test
    void recoveryRestoresTheNamedSegmentsAndContinuesAboveTheirSequences() {
        SegmentTable table = new SegmentTable(2, 3);
        table.restoreDurable(new long[] {0, 40, 0, 0, 7});
        assertEquals(SegmentState.DURABLE, table.state(1));
        assertEquals(40, table.sequence(1));
        assertEquals(SegmentState.DURABLE, table.state(4));
        assertEquals(1, table.freeSegments(0));
        assertEquals(2, table.freeSegments(1));
        assertEquals(41, table.nextSequence());
        table.continueSequencesFrom(1000);
        table.continueSequencesFrom(10);
        int next = table.open(1);
        assertTrue(next == 2 || next == 3, "a free segment of space 1: " + next);
        assertEquals(1000, table.sequence(next));
        assertThrows(IllegalStateException.class, () -> table.restoreDurable(new long[5]), "only an unused table");
        assertThrows(IllegalArgumentException.class, () -> new SegmentTable(2).restoreDurable(new long[3]));
    }

    @Test
    void readsPinOnlyReadableSegmentsAndHoldBackTheirReuse() {
        SegmentTable table = new SegmentTable(2);
        assertEquals(-1, table.pin(0), "a free segment");
        int segment = table.open(0);
        assertEquals(table.sequence(segment), table.pin(segment), "an open segment is read from memory");
        table.unpin(segment);
        table.seal(segment);
        table.written(segment);
        long sequence = table.pin(segment);
        assertEquals(table.sequence(segment), sequence);
        table.startReclaim(segment);
        assertEquals(-1, table.pin(segment), "no new read of a segment being reclaimed");
        assertFalse(table.finishReclaim(segment), "a read is in flight");
        table.unpin(segment);
        assertTrue(table.finishReclaim(segment));
        assertEquals(-1, table.pin(segment), "a retired segment");
        assertThrows(IllegalStateException.class, () -> table.unpin(segment));
    }

    @Test
    void anAbandonedSegmentIsRetiredLikeAReclaimedOne() {
        SegmentTable table = new SegmentTable(1);
        int segment = table.open(0);
        table.seal(segment);
        table.abandon(segment);
        assertTrue(table.finishReclaim(segment));
        assertEquals(1, table.checkpointDurable(table.checkpointStarted()));
    }

    @Test
    void refusesStepsOutOfOrderNamingTheSegmentAndItsState() {
        SegmentTable table = new SegmentTable(2);
        int segment = table.open(0);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> table.written(segment));
        assertEquals("segment " + segment + " is OPEN, not SEALED", e.getMessage());
        assertThrows(IllegalStateException.class, () -> table.startReclaim(segment));
        assertThrows(IllegalStateException.class, () -> table.finishReclaim(segment));
        assertThrows(IllegalStateException.class, () -> table.abandon(1 - segment), "a free segment");
        assertThrows(IllegalArgumentException.class, () -> new SegmentTable());
        assertThrows(IllegalArgumentException.class, () -> new SegmentTable(new int[65]));
    }

    /**
     * The writer reclaims and reuses one segment over and over while a reader pins it: while pinned,
     * the segment keeps the use the pin returned.
     */
    @Test
    void aPinnedSegmentKeepsItsUseWhileTheWriterCyclesIt() throws Exception {
        SegmentTable table = new SegmentTable(1);
        CountDownLatch start = new CountDownLatch(2);
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<String> failure = new AtomicReference<>();
        AtomicLong pinnedReads = new AtomicLong();
        Thread reader = new Thread(() -> {
            start.countDown();
            while (writing.get() && failure.get() == null) {
                long sequence = table.pin(0);
                if (sequence == -1) {
                    continue;
                }
                for (int i = 0; i < 20; i++) {
                    SegmentState state = table.state(0);
                    if (table.sequence(0) != sequence || !(state.readable() || state == SegmentState.RECLAIMING)) {
                        failure.set("pinned use " + sequence + ", found use " + table.sequence(0) + " " + state);
                    }
                }
                pinnedReads.incrementAndGet();
                table.unpin(0);
            }
        });
        reader.start();
        start.countDown();
        start.await();
        int cycles = 0;
        long waits = 0;
        // At least 20,000 cycles, and more until the reader has pinned 1,000 times (it may start late).
        while ((cycles < 20_000 || pinnedReads.get() < 1_000) && cycles < 5_000_000 && failure.get() == null) {
            int segment = durable(table, 0);
            table.startReclaim(segment);
            while (!table.finishReclaim(segment)) {
                waits++;
                Thread.onSpinWait();
            }
            table.checkpointDurable(table.checkpointStarted());
            cycles++;
        }
        writing.set(false);
        reader.join();
        assertNull(failure.get());
        assertTrue(pinnedReads.get() >= 1_000, "the reader pinned the segment " + pinnedReads.get() + " times in "
                + cycles + " cycles (waits " + waits + ")");
    }
}

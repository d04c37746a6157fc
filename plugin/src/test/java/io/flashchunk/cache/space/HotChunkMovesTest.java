package io.flashchunk.cache.space;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/** Which spaces hot chunks are moved off, and how many bytes a second, on a clock the test moves. */
class HotChunkMovesTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final int CHUNK = 16 << 10;

    private static final IntPredicate ALL_IN_USE = space -> true;
    /** A record written before any tick: settled once {@link HotChunkMoves#SETTLE_SECONDS} have passed. */
    private static final long OLD = 1;

    private final SpaceReads load = new SpaceReads(3);
    private long now = 5 * SECOND;
    /** The writer's next record sequence, told at each tick. */
    private long sequence = 100;

    /** Reads of each space taking {@code millis} in all over the coming second, then the second passes. */
    private void second(HotChunkMoves moves, long... millisPerSpace) {
        for (int space = 0; space < millisPerSpace.length; space++) {
            if (millisPerSpace[space] > 0) {
                load.read(space, TimeUnit.MILLISECONDS.toNanos(millisPerSpace[space]));
            }
        }
        now += SECOND;
        moves.tick(now, sequence++);
    }

    /** Moves whose records written before they started have settled: {@link HotChunkMoves#SETTLE_SECONDS} even seconds passed. */
    private HotChunkMoves settled(SpaceReads of, long bytesPerSecond, IntPredicate inUse) {
        HotChunkMoves moves = new HotChunkMoves(of, bytesPerSecond, now, inUse);
        for (int i = 0; i < HotChunkMoves.SETTLE_SECONDS; i++) {
            now += SECOND;
            moves.tick(now, sequence++);
        }
        return moves;
    }

    @Test
    void aSpaceWhoseReadsTakeMoreThanOneAndAHalfTimesTheLeastLoadedOnesIsASource() {
        HotChunkMoves moves = new HotChunkMoves(load, 4 * CHUNK, now, ALL_IN_USE);
        assertFalse(moves.source(0), "no second has passed");
        second(moves, 400, 100, 300); // 0.4, 0.1 and 0.3 reads in flight
        assertTrue(moves.source(0), "4 times the least loaded");
        assertFalse(moves.source(1), "the least loaded");
        assertTrue(moves.source(2), "3 times the least loaded");
        assertTrue(moves.lessLoaded(1, 0));
        assertFalse(moves.lessLoaded(2, 0), "0.4 is not 1.5 times 0.3");
        assertFalse(moves.lessLoaded(0, 0), "never into its own space");
        assertFalse(moves.lessLoaded(0, 1), "not into a more loaded space");
    }

    /**
     * Room is made only in a space that has taken every source's chunks for {@link HotChunkMoves#SETTLE_SECONDS}
     * ticks in a row, the least loaded of those: two healthy spaces that swap places as the least loaded
     * tick by tick are both such spaces, and one that stopped being such starts its count again.
     */
    @Test
    void theTargetIsTheLeastLoadedOfTheSpacesThatTookTheSourcesChunksForTheSettleTicks() {
        HotChunkMoves moves = new HotChunkMoves(load, 4 * CHUNK, now, ALL_IN_USE);
        for (int i = 0; i < HotChunkMoves.SETTLE_SECONDS - 1; i++) {
            // Space 0 loaded; spaces 1 and 2 each the least loaded every other tick.
            second(moves, 800, i % 2 == 0 ? 100 : 120, i % 2 == 0 ? 120 : 100);
            assertTrue(moves.source(0));
            assertEquals(-1, moves.target(), "tick " + i + ": not yet lasted");
        }
        second(moves, 800, 120, 100);
        int target = moves.target();
        assertTrue(target == 1 || target == 2, "either healthy space, though they swap: " + target);
        assertTrue(moves.lessLoaded(target, 3 - target) || !moves.lessLoaded(3 - target, target), "the less loaded of them");
        second(moves, 800, 2500, 300); // space 1 a source now
        assertTrue(moves.source(1));
        assertEquals(2, moves.target(), "the one that lasted");
        int ticks = 0;
        while (moves.target() == 2) {
            second(moves, 800, 90, 100); // space 1 calms down, and ends the least loaded
            ticks++;
            assertTrue(ticks < 3 * HotChunkMoves.SETTLE_SECONDS, "space 1 never became the target");
        }
        assertEquals(1, moves.target());
        assertTrue(ticks > HotChunkMoves.SETTLE_SECONDS, ticks + " ticks: space 1 counted again from when it took "
                + "the sources' chunks once more");
    }

    @Test
    void noSourceWhileTheLoadsAreWithinTheRatioOrTooSmallToMatter() {
        HotChunkMoves moves = new HotChunkMoves(load, 4 * CHUNK, now, ALL_IN_USE);
        second(moves, 140, 100, 100); // 1.4 times
        assertFalse(moves.source(0), "within the ratio");
        HotChunkMoves idle = new HotChunkMoves(new SpaceReads(2), 4 * CHUNK, now, ALL_IN_USE);
        idle.tick(now + SECOND - 1, sequence); // not yet a second: nothing averaged
        assertFalse(idle.source(0));
        SpaceReads light = new SpaceReads(2);
        HotChunkMoves lightMoves = new HotChunkMoves(light, 4 * CHUNK, now, ALL_IN_USE);
        light.read(0, TimeUnit.MILLISECONDS.toNanos(40)); // 0.04 reads in flight, against none
        lightMoves.tick(now + SECOND, sequence);
        assertFalse(lightMoves.source(0), "below " + HotChunkMoves.MIN_IN_FLIGHT + " reads in flight");
        light.read(0, TimeUnit.MILLISECONDS.toNanos(60));
        lightMoves.tick(now + 2 * SECOND, sequence);
        assertFalse(lightMoves.source(0), "0.045 on average after a second at 0.06");
        light.read(0, TimeUnit.MILLISECONDS.toNanos(100));
        lightMoves.tick(now + 3 * SECOND, sequence);
        assertTrue(lightMoves.source(0), "0.059 on average after a second at 0.1");
    }

    @Test
    void eachSecondGivesItsBudgetAndUnusedBudgetDoesNotCarryOver() {
        HotChunkMoves moves = new HotChunkMoves(load, 4 * CHUNK, now, ALL_IN_USE);
        assertFalse(moves.take(0, OLD, CHUNK), "no source before the first second");
        moves = settled(load, 4 * CHUNK, ALL_IN_USE);
        second(moves, 400, 100, 100);
        for (int i = 0; i < 4; i++) {
            assertTrue(moves.take(0, OLD, CHUNK), "move " + i + " of the second's four");
        }
        assertFalse(moves.take(0, OLD, CHUNK), "the second's budget is spent");
        assertTrue(moves.source(0), "still a source");
        assertFalse(moves.take(1, OLD, CHUNK), "not a source");
        assertEquals(4, moves.taken());
        second(moves, 400, 100, 100);
        second(moves, 400, 100, 100);
        assertFalse(moves.take(0, OLD, 4 * CHUNK + 1), "more than a second's budget at once");
        for (int i = 0; i < 4; i++) {
            assertTrue(moves.take(0, OLD, CHUNK), "a refused take gave its bytes back: move " + i);
        }
        assertFalse(moves.take(0, OLD, CHUNK), "two seconds passed, one second's budget");
        assertEquals(8, moves.taken());
    }

    @Test
    void aRecordWrittenInTheLastSettleSecondsStaysWhereItIs() {
        HotChunkMoves moves = new HotChunkMoves(load, 64 * CHUNK, now, ALL_IN_USE);
        long firstTick = sequence;
        for (int i = 0; i < HotChunkMoves.SETTLE_SECONDS; i++) {
            second(moves, 400, 100, 100);
            assertTrue(moves.source(0));
            assertFalse(moves.take(0, OLD, CHUNK), "nothing has settled " + (i + 1) + " s after the start");
        }
        second(moves, 400, 100, 100);
        assertTrue(moves.take(0, firstTick - 1, CHUNK), "written before the first tick, ten seconds ago");
        assertFalse(moves.take(0, firstTick, CHUNK), "written since the first tick: not ten seconds ago");
        second(moves, 400, 100, 100);
        assertTrue(moves.take(0, firstTick, CHUNK), "one second later it has");
        assertFalse(moves.take(0, firstTick + 1, CHUNK));
    }

    @Test
    void aSpaceOutOfUseIsNeitherTheMeasureNorATarget() {
        boolean[] out = new boolean[3];
        HotChunkMoves moves = settled(load, 4 * CHUNK, space -> !out[space]);
        out[1] = true; // its breaker took it out of use: its reads are refused, and take no time
        second(moves, 400, 0, 300);
        assertFalse(moves.source(0), "0.4 against 0.3: the space out of use is not the least loaded");
        assertFalse(moves.lessLoaded(1, 0), "nothing moves into a space out of use");
        out[2] = true;
        second(moves, 400, 0, 0);
        assertFalse(moves.source(0), "one space in use: nowhere to move to");
        out[1] = false;
        out[2] = false;
        second(moves, 400, 0, 0);
        assertTrue(moves.source(0), "back in use");
        assertTrue(moves.lessLoaded(1, 0));
    }

    @Test
    void movesStopOnceTheAveragesComeWithinTheRatio() {
        HotChunkMoves moves = new HotChunkMoves(load, 4 * CHUNK, now, ALL_IN_USE);
        second(moves, 400, 100, 100);
        assertTrue(moves.source(0));
        second(moves, 100, 100, 100);
        assertTrue(moves.source(0), "one even second leaves the average at 0.325: still loaded");
        int seconds = 1;
        while (moves.source(0)) {
            second(moves, 100, 100, 100);
            seconds++;
        }
        // 0.1 + 0.3 * 0.75^n falls to 1.5 * 0.1 or below from n = 7 even seconds on
        assertEquals(7, seconds, "seconds of even loads until space 0 is no longer a source");
    }

    @Test
    void aSlowSpaceIsLoadedByTheTimeItsReadsTakeNotByTheirNumber() {
        SpaceReads two = new SpaceReads(2);
        HotChunkMoves moves = new HotChunkMoves(two, 4 * CHUNK, now, ALL_IN_USE);
        for (int i = 0; i < 100; i++) {
            two.read(0, TimeUnit.MILLISECONDS.toNanos(2)); // 100 reads of 2 ms: 0.2 in flight
        }
        for (int i = 0; i < 1000; i++) {
            two.read(1, TimeUnit.MICROSECONDS.toNanos(100)); // ten times as many of 0.1 ms: 0.1 in flight
        }
        moves.tick(now + SECOND, sequence);
        assertTrue(moves.source(0), "fewer reads, more time");
        assertFalse(moves.source(1));
    }

    @Test
    void aRateThatIsNotPositiveIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new HotChunkMoves(load, 0, now, ALL_IN_USE));
    }
}

package io.flashchunk.cache.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link PowerCutSimulation} in CI: 300 cuts of a 4,000-operation history (two caches, the second
 * formatted over the first) with device writes completing at once, twice; 150 with the engine's
 * reclaim order; and 150 of a 2,000-operation history with writes up to 3 ms late (other
 * interleavings: that is how a crash between two spaces' checkpoint headers was found to crowd chunks
 * out of a mixed recovery). Longer runs: {@code scripts/sim-power-cut.sh}, or here
 * {@code -Dflashchunk.sim.seeds=N -Dflashchunk.sim.cuts=M -Dflashchunk.sim.operations=K}.
 */
class PowerCutTest {

    @Test
    void noCutServesAWrongByteOrLosesWhatADurableCheckpointNamed() throws Exception {
        int seeds = Integer.getInteger("flashchunk.sim.seeds", 1);
        int cuts = Integer.getInteger("flashchunk.sim.cuts", 300);
        int operations = Integer.getInteger("flashchunk.sim.operations", 4000);
        long checkedBack = 0;
        for (long seed = 1; seed <= seeds; seed++) {
            PowerCutSimulation.Result result = PowerCutSimulation.simulate(seed, operations, cuts, 0);
            assertTrue(result.chunksServed() > 0, "no cut's image served anything: the simulation tests nothing");
            checkedBack += result.checkedBack();
        }
        assertTrue(checkedBack > 0, "no cut had a durable checkpoint to check: the simulation tests nothing");
    }

    /** Cuts in and around both formats (the second over the first cache's records), and appends after each recovery. */
    @Test
    void cutsInTheFormatsAndAppendsAfterRecoveryServeNoStaleByte() throws Exception {
        PowerCutSimulation.Result result = PowerCutSimulation.simulate(4, 4000, 300, 0);
        assertTrue(result.cutsInFormats() > 10 && result.appendedAfterRecovery() > 0 && result.rewrites() > 20,
                "the simulation tests nothing: " + result);
        assertTrue(result.discardedAtStart() > 100, "half the cuts start with discards: " + result);
        // A cache of this seed's history discards each segment it frees: no cut after one loses a named chunk.
        assertTrue(result.discardedInHistory() > 50, "segments discarded in the history: " + result);
        // Checkpoints after the first of each cache are deltas until a full one is due: cuts recover from them.
        assertTrue(result.deltaCheckpoints() > 10 && result.cutsFromDeltas() > 10,
                "checkpoint deltas written and recovered from: " + result);
        // A recovered run's first checkpoint is a delta after those recovery read, and a crash after it is checked.
        assertTrue(result.continuedDeltas() > 50, "recovered runs whose first checkpoint was a delta: " + result);
        // Full checkpoints the writer goes on around: copied in steps between operations, then a delta and their header.
        assertTrue(result.fullsInSteps() > 3, "full checkpoints written in steps: " + result);
        assertTrue(result.appendedDuringFullEnds() > 0 && result.rewrittenDuringFullEnds() > 0,
                "chunks appended and rewritten while a full checkpoint's end ran: " + result);
        // Recoveries with the devices in another order, or a blank one added (the index re-indexed).
        assertTrue(result.cutsWithDevicesChanged() > 100, "cuts started with the devices changed: " + result);
    }

    /** With the engine's reclaim order: segments doomed one at a time as it gives them up, not a batch on need. */
    @Test
    void withSegmentsDoomedAsTheEnginesOrderGivesThemUp() throws Exception {
        PowerCutSimulation.Result result = PowerCutSimulation.simulate(3, 4000, 150, 0, true);
        assertTrue(result.chunksServed() > 0 && result.checkedBack() > 0, "the simulation tests nothing: " + result);
        assertTrue(result.reclaimed() > 10, "segments must be doomed and reused: " + result);
    }

    @Test
    void withLateCompletionsToo() throws Exception {
        PowerCutSimulation.Result result = PowerCutSimulation.simulate(2, 2000, 150,
                TimeUnit.MILLISECONDS.toNanos(3));
        assertTrue(result.chunksServed() > 0 && result.checkedBack() > 0, "the simulation tests nothing: " + result);
    }
}

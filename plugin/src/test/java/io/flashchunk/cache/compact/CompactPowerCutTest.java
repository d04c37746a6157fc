package io.flashchunk.cache.compact;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * One seed of {@link CompactPowerCutSimulation} in CI: 300 cuts of a 4,000-operation history. Longer
 * runs: {@code scripts/sim-power-cut.sh}, or here {@code -Dflashchunk.sim.seeds=N
 * -Dflashchunk.sim.cuts=M -Dflashchunk.sim.operations=K}.
 */
class CompactPowerCutTest {

    @Test
    void noCutServesAWrongByteOrLosesWhatADurableCheckpointNamed() throws Exception {
        int seeds = Integer.getInteger("flashchunk.sim.seeds", 1);
        int cuts = Integer.getInteger("flashchunk.sim.cuts", 300);
        int operations = Integer.getInteger("flashchunk.sim.operations", 4000);
        long checkedBack = 0;
        for (long seed = 1; seed <= seeds; seed++) {
            CompactPowerCutSimulation.Result result = CompactPowerCutSimulation.simulate(seed, operations, cuts);
            assertTrue(result.chunksServed() > 0, "no cut's image served anything: the simulation tests nothing");
            checkedBack += result.checkedBack();
        }
        assertTrue(checkedBack > 0, "no cut had a durable checkpoint to check: the simulation tests nothing");
    }
}

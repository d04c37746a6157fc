package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.testing.Scratch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The power-cut simulator in CI's bounded form: one seeded history, cut at evenly spread points.
 * Longer runs: {@code -Dflashchunk.sim.seeds=N -Dflashchunk.sim.cuts=M -Dflashchunk.sim.operations=K}
 * (the figures in docs/design.md come from such runs).
 */
class PowerCutSimulationTest {

    @Test
    void noCutServesAWrongByteOrLosesWhatADurableCheckpointNamed() throws Exception {
        int seeds = Integer.getInteger("flashchunk.sim.seeds", 1);
        int cuts = Integer.getInteger("flashchunk.sim.cuts", 150);
        int operations = Integer.getInteger("flashchunk.sim.operations", 1500);
        long firstSeed = Long.getLong("flashchunk.sim.seed", 20261124L);
        long totalCuts = 0;
        long served = 0;
        long expected = 0;
        for (long seed = firstSeed; seed < firstSeed + seeds; seed++) {
            Path dataDir = Files.createTempDirectory(Scratch.dir(), "sim");
            try {
                PowerCutSimulation simulation = new PowerCutSimulation(dataDir, seed);
                simulation.run(operations);
                PowerCutSimulation.Result result = simulation.check(cuts);
                assertEquals(List.of(), result.problems().subList(0, Math.min(20, result.problems().size())),
                        "seed " + seed + ": " + result.problems().size() + " problems");
                CacheStats history = result.history();
                assertTrue(result.checkpoints() > 10 && result.failedCheckpoints() > 0 && history.evictions() > 0
                        && history.invalidations() > 0, "seed " + seed + ": the history must hold checkpoints (failed "
                        + "ones among them), evictions by weight and invalidations: " + result);
                totalCuts += result.cuts();
                served += result.chunksServed();
                expected += result.expectedBack();
                System.out.printf("power-cut simulation seed %d: %d cuts, %d chunks checked, %d served, %d named by "
                        + "every loadable checkpoint (all back), %d checkpoints (%d failed), %d evictions, %d "
                        + "invalidations, %d migrations; 0 wrong bytes%n", seed, result.cuts(), result.chunksChecked(),
                        result.chunksServed(), result.expectedBack(), result.checkpoints(), result.failedCheckpoints(),
                        history.evictions(), history.invalidations(), history.migrations());
            } finally {
                try (var files = Files.list(dataDir)) {
                    for (Path file : files.toList()) {
                        Files.delete(file);
                    }
                }
                Files.delete(dataDir);
            }
        }
        assertTrue(served > 0 && expected > 0, "recoveries served nothing: the simulation tests nothing");
        System.out.printf("power-cut simulation: %d seeds, %d cut points, zero wrong bytes, zero lost chunks%n", seeds,
                totalCuts);
    }
}

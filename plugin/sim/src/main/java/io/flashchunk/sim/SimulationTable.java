package io.flashchunk.sim;

import java.util.List;
import java.util.Locale;

/** The simulator's results as a markdown table, each design against the per-chunk reference at the same flash size. */
final class SimulationTable {
    private SimulationTable() {
    }

    static String markdown(List<Replay> results) {
        StringBuilder text = new StringBuilder("| trace | flash | design | hit ratio | vs reference (points) "
                + "| byte hit ratio | flash written per admitted byte | flash written per read byte |\n"
                + "|---|---:|---|---:|---:|---:|---:|---:|\n");
        Replay reference = null;
        for (Replay r : results) {
            if (reference == null || !reference.trace().equals(r.trace()) || reference.cacheFraction() != r.cacheFraction()) {
                reference = r; // the first design of each trace and size is the reference
            }
            text.append(String.format(Locale.ROOT, "| %s | %.0f%% | %s | %.2f%% | %+.2f | %.2f%% | %.3f | %.3f |%n",
                    r.trace(), 100 * r.cacheFraction(), r.design(), 100 * r.hitRatio(),
                    100 * (r.hitRatio() - reference.hitRatio()), 100 * r.byteHitRatio(), r.writtenPerAdmitted(),
                    r.writtenPerRead()));
        }
        return text.toString();
    }
}

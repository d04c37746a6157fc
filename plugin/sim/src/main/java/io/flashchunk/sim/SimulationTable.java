package io.flashchunk.sim;

import java.util.List;
import java.util.Locale;

/** The simulator's results as a markdown table, each design against today's at the same flash size. */
final class SimulationTable {
    private SimulationTable() {
    }

    static String markdown(List<Replay> results) {
        StringBuilder text = new StringBuilder("| trace | flash | design | hit ratio | vs today (points) "
                + "| byte hit ratio | flash written per admitted byte | flash written per read byte |\n"
                + "|---|---:|---|---:|---:|---:|---:|---:|\n");
        Replay today = null;
        for (Replay r : results) {
            if (today == null || !today.trace().equals(r.trace()) || today.cacheFraction() != r.cacheFraction()) {
                today = r; // the first design of each trace and size is today's
            }
            text.append(String.format(Locale.ROOT, "| %s | %.0f%% | %s | %.2f%% | %+.2f | %.2f%% | %.3f | %.3f |%n",
                    r.trace(), 100 * r.cacheFraction(), r.design(), 100 * r.hitRatio(),
                    100 * (r.hitRatio() - today.hitRatio()), 100 * r.byteHitRatio(), r.writtenPerAdmitted(),
                    r.writtenPerRead()));
        }
        return text.toString();
    }
}

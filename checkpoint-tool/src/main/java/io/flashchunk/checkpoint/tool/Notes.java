package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.engine.CacheInspection;
import java.io.PrintWriter;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import picocli.CommandLine.Model.CommandSpec;

/** Remarks on standard error that do not belong in a report's table or JSON. */
final class Notes {
    private Notes() {
    }

    /** Why nothing was restored, or which segments' entries could not be named. */
    static void printRecoveryProblems(CommandSpec spec, CacheInspection cache, List<String> unreadable) {
        PrintWriter err = spec.commandLine().getErr();
        if (!cache.recovered()) {
            err.println(spec.qualifiedName() + ": the devices do not form one cache; nothing is restored ("
                    + String.join("; ", cache.setProblems().isEmpty()
                    ? cache.devices().stream().map(CacheInspection.Device::superblockProblem).filter(Objects::nonNull)
                            .collect(Collectors.toUnmodifiableList())
                    : cache.setProblems()) + ")");
        } else if (cache.restoredEntries() == 0) {
            err.println(spec.qualifiedName() + ": no entries restored (no valid checkpoint, or an empty cache)");
        }
        unreadable.forEach(problem -> err.println(spec.qualifiedName() + ": " + problem + ": its entries cannot be named"));
        err.flush();
    }
}

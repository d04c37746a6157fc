package io.flashchunk.checkpoint.tool;

import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** Remarks on standard error that do not belong in a report's table or JSON. */
final class Notes {
    private Notes() {
    }

    /** One line per device that has no checkpoint to report on, saying why. */
    static void printWhyNoCheckpoint(CommandSpec spec, List<DeviceScan> scans) {
        PrintWriter err = spec.commandLine().getErr();
        for (DeviceScan scan : scans) {
            String why = scan.whyNoCheckpoint();
            if (why != null) {
                err.println(spec.qualifiedName() + ": " + why);
            }
        }
        err.flush();
    }
}

package io.flashchunk.checkpoint.tool;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code info <device>...}: superblocks and both checkpoint areas of each device. Reads, never writes. */
@Command(name = "info",
        mixinStandardHelpOptions = true,
        description = {
            "Shows each device's superblock (cache instance, address space, geometry) or why it is unreadable; "
                    + "for both checkpoint areas whether they are valid, empty or invalid (and why), with sequence, "
                    + "time, entries, files and body bytes; and which area recovery would use (the newest valid one). "
                    + "Ends with whether the devices agree on the cache instance and the number of spaces."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the report was printed (what it says about the devices does not change the exit code)",
            "2:bad usage, or a path that is missing, not a regular file or block device, or cannot be opened"
        })
final class InfoCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private DeviceArguments devices;

    @Option(names = "--json", description = "Print one JSON object instead of aligned lines.")
    private boolean json;

    @Override
    public Integer call() {
        CacheDevices opened = devices.open(spec);
        if (opened == null) {
            return ExitCodes.UNUSABLE;
        }
        try (opened) {
            PrintWriter out = spec.commandLine().getOut();
            if (opened.compact() != null) {
                out.print(json ? CompactReports.infoJson(opened.compact()) + System.lineSeparator()
                        : CompactReports.infoText(opened.compact()));
            } else if (json) {
                out.println(JsonInfoReport.format(opened.scans()));
            } else {
                out.print(TextInfoReport.format(opened.scans()));
            }
            out.flush();
            return ExitCodes.OK;
        }
    }
}

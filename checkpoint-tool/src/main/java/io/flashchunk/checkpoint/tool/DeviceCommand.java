package io.flashchunk.checkpoint.tool;

import io.flashchunk.device.DeviceOpenException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code device <path>}: reports what is at a cache device path. Opens it read-only, writes nothing. */
@Command(name = "device",
        mixinStandardHelpOptions = true,
        description = {
            "Reports what is at a cache device path: its kind (regular file or block device), "
                    + "its size in bytes and in " + DeviceReport.BLOCK_BYTES + "-byte blocks, "
                    + "and whether it opens with O_DIRECT for reading."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the path is a regular file or block device (even if O_DIRECT is refused: see direct-read)",
            "1:the size of the path could not be read",
            "2:the path is missing, or is neither a regular file nor a block device; or bad usage"
        })
final class DeviceCommand implements Callable<Integer> {
    static final int EXIT_OK = 0;
    static final int EXIT_UNREADABLE = 1;
    static final int EXIT_UNUSABLE = 2;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<path>", description = "A cache device: a regular file or a block device.")
    private Path path;

    @Option(names = "--json", description = "Print one JSON object instead of aligned lines.")
    private boolean json;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Inspection inspection;
        try {
            inspection = DeviceInspector.inspect(path);
        } catch (DeviceOpenException e) {
            err.println(spec.qualifiedName() + ": " + e.getMessage());
            err.flush();
            return EXIT_UNREADABLE;
        }
        if (inspection instanceof UnusablePath) {
            err.println(spec.qualifiedName() + ": " + ((UnusablePath) inspection).message());
            err.flush();
            return EXIT_UNUSABLE;
        }
        DeviceReport report = (DeviceReport) inspection;
        if (json) {
            out.println(JsonDeviceReport.format(report));
        } else {
            out.print(TextDeviceReport.format(report));
        }
        out.flush();
        return EXIT_OK;
    }
}

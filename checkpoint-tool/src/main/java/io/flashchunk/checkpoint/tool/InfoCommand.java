package io.flashchunk.checkpoint.tool;

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
            "Shows each device's superblock (cache instance, address space, blocks, area blocks, segments) or why "
                    + "it is unreadable; for both checkpoint areas whether they are valid, empty or invalid (and why), "
                    + "with sequence, time, entries, files and body bytes; which area recovery uses; and the durable "
                    + "segments. Ends with whether the devices form one cache and what recovery restores."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the report was printed (what it says about the devices does not change the exit code)",
            ExitCodes.UNUSABLE_HELP
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
        return devices.print(spec, cache -> json ? Reports.infoJson(cache) + System.lineSeparator()
                : Reports.infoText(cache));
    }
}

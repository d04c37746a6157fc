package io.flashchunk.checkpoint.tool;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code stats <device>...}: how much each space holds, and which files the cache holds. */
@Command(name = "stats",
        mixinStandardHelpOptions = true,
        description = {
            "Counts over what recovery restores from the devices' newest valid checkpoints: per address space its "
                    + "segments, the durable ones, its entries and their chunk bytes; per file (over all spaces) "
                    + "entries and bytes, most entries first."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the statistics were printed",
            ExitCodes.UNUSABLE_HELP
        })
final class StatsCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private DeviceArguments devices;

    @Option(names = "--json", description = "Print one JSON object instead of tables.")
    private boolean json;

    @Override
    public Integer call() {
        return devices.print(spec, cache -> {
            List<String> unreadable = new ArrayList<>();
            String report = Reports.stats(cache, json, unreadable);
            Notes.printRecoveryProblems(spec, cache, unreadable);
            return report;
        });
    }
}

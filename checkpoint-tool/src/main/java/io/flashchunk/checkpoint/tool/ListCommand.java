package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.engine.CacheInspection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code list <device>... [--file SUBSTRING]}: the entries recovery restores from the devices' checkpoints. */
@Command(name = "list",
        mixinStandardHelpOptions = true,
        description = {
            "Lists the cached chunks recovery restores from the devices' newest valid checkpoints, each named by "
                    + "its segment's summary: address space, chunk position in its file, length in bytes, segment, "
                    + "the record's byte offset in the segment, and file path; sorted by space, file and position. "
                    + "When nothing is restored (the devices do not form one cache, or hold no checkpoint), or a "
                    + "segment's entries cannot be named, standard error says so."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the list was printed (even if empty)",
            ExitCodes.UNUSABLE_HELP
        })
final class ListCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private DeviceArguments devices;

    @Option(names = "--file", paramLabel = "SUBSTRING",
            description = "Only chunks of files whose path contains SUBSTRING (case-sensitive).")
    private String fileFilter;

    @Option(names = "--json", description = "Print one JSON array of entries instead of a table.")
    private boolean json;

    @Override
    public Integer call() {
        return devices.print(spec, cache -> {
            List<String> unreadable = new ArrayList<>();
            List<CacheInspection.Entry> entries = Reports.entries(cache, fileFilter, unreadable);
            Notes.printRecoveryProblems(spec, cache, unreadable);
            return json ? Reports.listJson(entries) + System.lineSeparator() : Reports.listText(entries);
        });
    }
}

package io.flashchunk.checkpoint.tool;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code list <device>... [--file SUBSTRING]}: the entries of each space's newest valid checkpoint. */
@Command(name = "list",
        mixinStandardHelpOptions = true,
        description = {
            "Lists the cached chunks the newest valid checkpoint of each device records: address space, "
                    + "chunk position in its file, length in bytes, first block (LBA) of its run, location stamp, "
                    + "CRC32C (hex) and file path; sorted by space, file and position. A device without a valid "
                    + "checkpoint lists nothing and is named on standard error."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the list was printed (even if empty)",
            "2:bad usage, or a path that is missing, not a regular file or block device, or cannot be opened"
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
        CacheDevices opened = devices.open(spec);
        if (opened == null) {
            return ExitCodes.UNUSABLE;
        }
        try (opened) {
            if (opened.compact() != null) {
                return listCompact(opened.compact());
            }
            Notes.printWhyNoCheckpoint(spec, opened.scans());
            List<CacheEntry> entries = new ArrayList<>();
            for (DeviceScan scan : opened.scans()) {
                CacheEntries.forEach(scan, entry -> {
                    if (fileFilter == null || entry.file().path().contains(fileFilter)) {
                        entries.add(entry);
                    }
                });
            }
            entries.sort(CacheEntries.BY_FILE);
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                out.println(Json.write(Json.array().addAll(entries.stream().map(ListCommand::json).toList())));
            } else {
                out.print(table(entries));
            }
            out.flush();
            return ExitCodes.OK;
        }
    }

    /** The compact engine's entries: what recovery restores, named by their segments' summaries. */
    private int listCompact(CompactCache cache) {
        List<String> unreadable = new ArrayList<>();
        List<CompactCache.Entry> entries = CompactReports.entries(cache, fileFilter, unreadable);
        Notes.printCompactProblems(spec, cache, unreadable);
        PrintWriter out = spec.commandLine().getOut();
        out.print(json ? CompactReports.listJson(entries) + System.lineSeparator() : CompactReports.listText(entries));
        out.flush();
        return ExitCodes.OK;
    }

    private static String table(List<CacheEntry> entries) {
        TextTable table = new TextTable("", "SPACE>", "POSITION>", "LENGTH>", "LBA>", "STAMP>", "CRC", "FILE");
        for (CacheEntry entry : entries) {
            table.row(entry.space(), entry.position(), entry.length(), entry.lba(), entry.stamp(), entry.crcHex(),
                    entry.file().path());
        }
        return table.format();
    }

    private static ObjectNode json(CacheEntry entry) {
        return Json.object()
                .put("space", entry.space())
                .put("device", entry.device())
                .put("file", entry.file().path())
                .put("fileId", entry.fileId())
                .put("position", entry.position())
                .put("length", entry.length())
                .put("lba", entry.lba())
                .put("runBlocks", entry.runBlocks())
                .put("stamp", entry.stamp())
                .put("crc", entry.crcHex());
    }
}

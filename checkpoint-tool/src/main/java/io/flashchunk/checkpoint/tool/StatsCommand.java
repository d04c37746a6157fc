package io.flashchunk.checkpoint.tool;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.flashchunk.checkpoint.tool.CacheStatistics.FileFigures;
import io.flashchunk.checkpoint.tool.CacheStatistics.SizeBucket;
import io.flashchunk.checkpoint.tool.CacheStatistics.SpaceFigures;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code stats <device>...}: how full each space is, which files the cache holds, how big the chunks are. */
@Command(name = "stats",
        mixinStandardHelpOptions = true,
        description = {
            "Counts over the newest valid checkpoint of each device: per address space its data blocks, the blocks "
                    + "its entries' runs take (a chunk takes a power-of-two run of 4096-byte blocks) and how many "
                    + "percent that is, and its entries; per file (over all spaces) entries and bytes, most entries "
                    + "first; and chunk sizes by run (4K, 8K, 16K, 32K, 64K), with how many chunks are short "
                    + "(shorter than their run: not a power-of-two number of blocks)."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the statistics were printed",
            "2:bad usage, or a path that is missing, not a regular file or block device, or cannot be opened"
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
        CacheDevices opened = devices.open(spec);
        if (opened == null) {
            return ExitCodes.UNUSABLE;
        }
        try (opened) {
            if (opened.compact() != null) {
                List<String> unreadable = new ArrayList<>();
                String report = CompactReports.stats(opened.compact(), json, unreadable);
                Notes.printCompactProblems(spec, opened.compact(), unreadable);
                PrintWriter out = spec.commandLine().getOut();
                out.print(report);
                out.flush();
                return ExitCodes.OK;
            }
            CacheStatistics statistics = CacheStatistics.of(opened.scans());
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                out.println(json(statistics));
            } else {
                out.print(text(statistics));
            }
            out.flush();
            return ExitCodes.OK;
        }
    }

    static String text(CacheStatistics statistics) {
        String newline = System.lineSeparator();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < statistics.spaces().size(); i++) {
            SpaceFigures space = statistics.spaces().get(i);
            out.append("device ").append(i).append(": ").append(space.path()).append(newline);
            TextFields fields = new TextFields("  ");
            if (space.space() >= 0) {
                fields.add("space", space.space());
                fields.add("checkpoint", space.area() == null ? "none" : "sequence " + space.sequence() + " (area "
                        + space.area() + ")");
                fields.add("data-blocks", space.dataBlocks());
                fields.add("used-blocks", space.usedBlocks() + " (" + percent(space.percentUsed()) + ")");
                fields.add("entries", space.entries());
                fields.add("chunk-bytes", space.bytes());
            }
            if (space.note() != null) {
                fields.add("note", space.note());
            }
            out.append(fields.format()).append(newline);
        }
        out.append("all devices:").append(newline).append(new TextFields("  ")
                .add("data-blocks", statistics.totalDataBlocks())
                .add("used-blocks", statistics.totalUsedBlocks() + " (" + percent(statistics.totalPercentUsed()) + ")")
                .add("entries", statistics.totalEntries())
                .add("chunk-bytes", statistics.totalBytes())
                .format()).append(newline);

        out.append("files:").append(newline);
        TextTable files = new TextTable("  ", "ENTRIES>", "BYTES>", "FILE");
        for (FileFigures file : statistics.files()) {
            files.row(file.entries(), file.bytes(), file.path());
        }
        out.append(files.format()).append(newline);

        out.append("chunk sizes (run: the length rounded up to a power of two of 4K blocks; "
                + "short: shorter than its run):").append(newline);
        TextTable sizes = new TextTable("  ", "RUN>", "CHUNKS>", "SHORT>", "BYTES>");
        for (SizeBucket bucket : statistics.sizes()) {
            sizes.row(bucket.label(), bucket.chunks(), bucket.shortChunks(), bucket.bytes());
        }
        out.append(sizes.format());
        return out.toString();
    }

    static String json(CacheStatistics statistics) {
        ObjectNode json = Json.object();
        json.putArray("spaces").addAll(statistics.spaces().stream().map(StatsCommand::json).toList());
        json.putObject("total")
                .put("dataBlocks", statistics.totalDataBlocks())
                .put("usedBlocks", statistics.totalUsedBlocks())
                .put("percentUsed", Json.rounded(statistics.totalPercentUsed(), 4))
                .put("entries", statistics.totalEntries())
                .put("bytes", statistics.totalBytes())
                .put("shortChunks", statistics.totalShortChunks());
        json.putArray("files").addAll(statistics.files().stream().map(file -> Json.object()
                .put("path", file.path())
                .put("entries", file.entries())
                .put("bytes", file.bytes())).toList());
        json.putArray("chunkSizes").addAll(statistics.sizes().stream().map(bucket -> Json.object()
                .put("run", bucket.label())
                .put("runBlocks", bucket.runBlocks())
                .put("chunks", bucket.chunks())
                .put("shortChunks", bucket.shortChunks())
                .put("bytes", bucket.bytes())).toList());
        return Json.write(json);
    }

    private static ObjectNode json(SpaceFigures space) {
        return Json.object()
                .put("path", space.path())
                .put("space", space.space() < 0 ? null : space.space())
                .put("dataBlocks", space.dataBlocks())
                .put("usedBlocks", space.usedBlocks())
                .put("percentUsed", Json.rounded(space.percentUsed(), 4))
                .put("entries", space.entries())
                .put("bytes", space.bytes())
                .put("area", space.area())
                .put("sequence", space.area() == null ? null : space.sequence())
                .put("note", space.note());
    }

    private static String percent(double value) {
        return String.format(Locale.ROOT, "%.2f%%", value);
    }
}

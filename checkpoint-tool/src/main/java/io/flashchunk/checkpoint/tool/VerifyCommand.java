package io.flashchunk.checkpoint.tool;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code verify <device>... [--data]}: every check recovery makes, and optionally every cached chunk's CRC. */
@Command(name = "verify",
        mixinStandardHelpOptions = true,
        description = {
            "Checks every superblock, that the devices form one cache in the order given (same instance, "
                    + "device i holds space i of as many as given), and both checkpoint areas of every device with "
                    + "every check the cache's recovery makes (checksums, lengths, file table, every entry's file, "
                    + "space, range, alignment and overlap). Prints each problem found.",
            "",
            "An empty area (all-zero header) is not a problem: new caches have them, and a crash during a "
                    + "checkpoint leaves one. A torn or corrupt area, a blank or corrupt superblock, and devices "
                    + "that do not form one cache are.",
            "",
            "With --data, also reads every chunk the newest valid checkpoints name and checks its CRC32C. A "
                    + "mismatch is a problem unless the chunk's file has changed or is gone since the checkpoint "
                    + "(recovery drops those chunks; they are counted as stale)."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:everything checked is sound",
            "1:at least one problem was found",
            "2:bad usage, or a path that is missing, not a regular file or block device, or cannot be opened"
        })
final class VerifyCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private DeviceArguments devices;

    @Option(names = "--data",
            description = "Also read every cached chunk of the newest valid checkpoints and check its CRC32C.")
    private boolean data;

    @Option(names = "--progress",
            description = "Show a progress bar for --data on standard error even when it is not a terminal "
                    + "(on a terminal it is always shown).")
    private boolean progress;

    @Option(names = "--json", description = "Print one JSON object instead of lines.")
    private boolean json;

    @Override
    public Integer call() {
        CacheDevices opened = devices.open(spec);
        if (opened == null) {
            return ExitCodes.UNUSABLE;
        }
        Verification verification = new Verification();
        try (opened) {
            if (opened.compact() != null) {
                verifyCompact(opened.compact(), verification);
            } else {
                StructureCheck.check(opened.scans(), verification);
                if (data) {
                    checkData(opened, verification);
                }
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(json ? VerifyReport.json(verification) + System.lineSeparator() : VerifyReport.text(verification));
        out.flush();
        return verification.ok() ? ExitCodes.OK : ExitCodes.PROBLEMS;
    }

    private void verifyCompact(CompactCache cache, Verification verification) {
        CompactVerifier verifier = new CompactVerifier(verification);
        List<CompactCache.Entry> entries = verifier.verifyStructure(cache);
        if (data) {
            ProgressBar bar = progress || Terminal.stderrIsTerminal()
                    ? new ProgressBar(spec.commandLine().getErr(), entries.size(), "chunks") : null;
            verifier.verifyData(cache, entries, bar);
            if (bar != null) {
                bar.finish();
            }
        }
    }

    private void checkData(CacheDevices opened, Verification verification) {
        verification.dataChecked = true;
        long total = opened.scans().stream().mapToLong(CacheEntries::count).sum();
        ProgressBar bar = progress || Terminal.stderrIsTerminal()
                ? new ProgressBar(spec.commandLine().getErr(), total, "chunks") : null;
        ChunkVerifier verifier = new ChunkVerifier(verification, bar);
        for (int i = 0; i < opened.scans().size(); i++) {
            verifier.verify(opened.device(i), opened.scans().get(i));
        }
        if (bar != null) {
            bar.finish();
        }
    }
}

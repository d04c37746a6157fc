package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.engine.CacheInspection;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code verify <device>... [--data]}: every check recovery makes, and optionally every cached record. */
@Command(name = "verify",
        mixinStandardHelpOptions = true,
        description = {
            "Checks every superblock, that the devices form one cache in the order given (same instance and "
                    + "layout, device i holds space i of as many as given), both checkpoint areas of every device as "
                    + "recovery judges them (header, then body and every entry while it restores them), every "
                    + "durable segment's summary, and that every restored entry is a record its segment's summary "
                    + "names. Prints each problem found.",
            "",
            "An empty area (all-zero header) is not a problem: new caches have them, and a crash during a "
                    + "checkpoint leaves one. A torn or corrupt area, a blank or corrupt superblock, and devices "
                    + "that do not form one cache are. A segment summary that does not check is a note: a power cut "
                    + "while an open segment's summary is rewritten leaves one, and the engine drops its entries.",
            "",
            "With --data, also reads every restored entry's record back and checks it as a flash hit is (its key, "
                    + "its segment's use, the CRC32C of its header and of its chunk). A record that fails is a problem "
                    + "unless its file has changed or is gone since the checkpoint (start never restores such a file; "
                    + "they are counted as stale)."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:everything checked is sound",
            "1:at least one problem was found",
            ExitCodes.UNUSABLE_HELP
        })
final class VerifyCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private DeviceArguments devices;

    @Option(names = "--data",
            description = "Also read every restored entry's record back and check it as a flash hit is.")
    private boolean data;

    @Option(names = "--progress",
            description = "Show a progress bar for --data on standard error even when it is not a terminal "
                    + "(on a terminal it is always shown).")
    private boolean progress;

    @Option(names = "--json", description = "Print one JSON object instead of lines.")
    private boolean json;

    @Override
    public Integer call() {
        Verification verification = new Verification();
        int opened = devices.print(spec, cache -> {
            verify(cache, verification);
            return json ? VerifyReport.json(verification) + System.lineSeparator() : VerifyReport.text(verification);
        });
        return opened == ExitCodes.OK && !verification.ok() ? ExitCodes.PROBLEMS : opened;
    }

    private void verify(CacheInspection cache, Verification verification) {
        Verifier verifier = new Verifier(verification);
        List<CacheInspection.Entry> entries = verifier.verifyStructure(cache);
        if (data) {
            ProgressBar bar = progress || Terminal.stderrIsTerminal()
                    ? new ProgressBar(spec.commandLine().getErr(), entries.size(), "chunks") : null;
            verifier.verifyData(cache, entries, bar);
            if (bar != null) {
                bar.finish();
            }
        }
    }
}

package io.flashchunk.checkpoint.tool;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The {@code flashchunk-checkpoint} command: read-only inspection of FlashChunk cache devices
 * and of the checkpoints written on them.
 */
@Command(name = "flashchunk-checkpoint",
        mixinStandardHelpOptions = true,
        versionProvider = ToolVersion.class,
        description = "Inspects FlashChunk cache devices and their checkpoints without changing them.",
        subcommands = {DeviceCommand.class, InfoCommand.class, ListCommand.class, StatsCommand.class,
            VerifyCommand.class})
public final class CheckpointTool implements Runnable {
    @Spec
    private CommandSpec spec;

    public static void main(String[] args) {
        System.exit(newCommandLine().execute(args));
    }

    /** The command line as {@link #main} runs it; tests execute it with their own output streams. */
    public static CommandLine newCommandLine() {
        return new CommandLine(new CheckpointTool());
    }

    @Override
    public void run() {
        // The tool does nothing by itself: without a subcommand, say so the way picocli reports usage errors.
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing subcommand: try 'device <path>', "
                + "'info <device>...', 'list <device>...', 'stats <device>...' or 'verify <device>...'");
    }
}

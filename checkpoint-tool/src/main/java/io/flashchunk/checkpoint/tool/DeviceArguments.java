package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.engine.CacheInspection;
import io.flashchunk.device.DeviceOpenException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;

/** The device paths the checkpoint subcommands take, and opening them with one way of reporting failure. */
final class DeviceArguments {
    @Parameters(arity = "1..*", paramLabel = "<device>",
            description = "The cache's devices (regular files or block devices), as its configuration lists "
                    + "them: device i is address space i (a device moved in the list keeps its chunks there).")
    private List<Path> paths;

    List<Path> paths() {
        return paths;
    }

    /**
     * Opens and reads the devices; or, when a path is missing, unsuitable, given twice, cannot be
     * opened or holds the removed per-chunk engine's format, prints one line per such path to
     * standard error and returns null (exit code {@link ExitCodes#UNUSABLE}).
     */
    CacheDevices open(CommandSpec spec) {
        PrintWriter err = spec.commandLine().getErr();
        boolean usable = true;
        Set<Path> seen = new HashSet<>();
        for (Path path : paths) {
            String problem = problem(path);
            if (problem == null && !seen.add(path.toAbsolutePath().normalize())) {
                problem = path + ": given twice (each device holds one address space)";
            }
            if (problem != null) {
                err.println(spec.qualifiedName() + ": " + problem);
                usable = false;
            }
        }
        if (usable) {
            try {
                return CacheDevices.open(paths);
            } catch (DeviceOpenException e) {
                err.println(spec.qualifiedName() + ": " + e.getMessage());
            } catch (PerChunkFormatException e) {
                e.messages().forEach(message -> err.println(spec.qualifiedName() + ": " + message));
            }
        }
        err.flush();
        return null;
    }

    /**
     * Opens the devices, prints to standard output what {@code report} makes of them and closes them;
     * returns {@link ExitCodes#OK}, or {@link ExitCodes#UNUSABLE} when they cannot be opened (as {@link #open} says).
     */
    int print(CommandSpec spec, Function<CacheInspection, String> report) {
        CacheDevices opened = open(spec);
        if (opened == null) {
            return ExitCodes.UNUSABLE;
        }
        try (opened) {
            PrintWriter out = spec.commandLine().getOut();
            out.print(report.apply(opened.cache()));
            out.flush();
            return ExitCodes.OK;
        }
    }

    /** Why the path can hold no cache, in {@code device}'s words, or null. */
    private static String problem(Path path) {
        try {
            Inspection inspection = DeviceInspector.inspect(path);
            return inspection instanceof UnusablePath ? ((UnusablePath) inspection).message() : null;
        } catch (DeviceOpenException e) {
            return e.getMessage();
        }
    }
}

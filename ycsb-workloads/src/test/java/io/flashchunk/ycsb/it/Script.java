package io.flashchunk.ycsb.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs one of the project's scripts (scripts/NAME) and collects its output. */
final class Script {
    private static final Path SCRIPTS = Path.of(System.getProperty("flashchunk.test.scriptsDir", "../scripts"));

    record Result(String command, int exitCode, String output) {
        String orFail() {
            if (exitCode != 0) {
                throw new AssertionError(command + " failed (exit " + exitCode + "):\n" + output);
            }
            return output;
        }
    }

    private Script() {
    }

    static Result run(String name, String... arguments) {
        List<String> command = new ArrayList<>(List.of("bash", SCRIPTS.resolve(name).toString()));
        command.addAll(List.of(arguments));
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            // Never start Maven from inside the Maven build that runs this test: the jar is packaged already.
            builder.environment().put("FLASHCHUNK_YCSB_NO_BUILD", "1");
            Process process = builder.start();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not finish");
            }
            return new Result(name + " " + String.join(" ", arguments), process.exitValue(),
                    new String(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

package io.flashchunk.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the system tools tests set up real parts with (losetup, mkfs.ext4, mount), as root. */
public final class Commands {
    private Commands() {
    }

    /** Runs {@code command}, returns what it printed, throws with that output if it fails or hangs. */
    public static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " failed (these tools need root): " + output.trim());
        }
        return output;
    }
}

package io.flashchunk.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A real loop block device over a scratch file, attached with direct I/O and always detached on close. */
public final class LoopDevice implements AutoCloseable {
    private final Path backingFile;
    private final Path device;

    private LoopDevice(Path backingFile, Path device) {
        this.backingFile = backingFile;
        this.device = device;
    }

    /** Attaches a loop device of {@code bytes} bytes. Needs root, as CI and the project's machines run. */
    public static LoopDevice attach(long bytes) throws IOException, InterruptedException {
        Path file = Scratch.file("loop", bytes);
        String device = run(List.of("losetup", "-f", "--show", "--direct-io=on", file.toString())).trim();
        if (!device.startsWith("/dev/loop")) {
            throw new IOException("losetup printed no loop device: '" + device + "'");
        }
        return new LoopDevice(file, Path.of(device));
    }

    public Path path() {
        return device;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        try {
            run(List.of("losetup", "-d", device.toString()));
        } finally {
            java.nio.file.Files.deleteIfExists(backingFile);
        }
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (loop devices need root): " + output.trim());
        }
        return output;
    }
}

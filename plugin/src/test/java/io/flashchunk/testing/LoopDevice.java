package io.flashchunk.testing;

import java.io.IOException;
import java.nio.file.Path;

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
        String device = Commands.run("losetup", "-f", "--show", "--direct-io=on", file.toString()).trim();
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
            Commands.run("losetup", "-d", device.toString());
        } finally {
            java.nio.file.Files.deleteIfExists(backingFile);
        }
    }
}

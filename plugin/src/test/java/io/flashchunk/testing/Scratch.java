package io.flashchunk.testing;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;

/** Scratch files for device tests, on the build's file system (O_DIRECT needs a real one, not tmpfs). */
public final class Scratch {
    private Scratch() {
    }

    public static Path dir() throws IOException {
        Path dir = Path.of(System.getProperty("flashchunk.test.scratchDir", "target/scratch")).toAbsolutePath();
        Files.createDirectories(dir);
        return dir;
    }

    /** A new file of exactly {@code bytes} bytes (sparse: reads of unwritten blocks return zeros). */
    public static Path file(String prefix, long bytes) throws IOException {
        Path file = Files.createTempFile(dir(), prefix, ".img");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(bytes);
        }
        return file;
    }

    /** Our capiblock-compatible library, built from native/ by the plugin's build. */
    public static String capiLibrary() {
        String path = System.getProperty("flashchunk.test.capiLibrary");
        if (path == null || !Files.isRegularFile(Path.of(path))) {
            throw new IllegalStateException("flashchunk.test.capiLibrary must name the built native/build/libcflsh_block.so, got "
                    + path + " (run the tests through Maven, which builds native/ first)");
        }
        return path;
    }
}

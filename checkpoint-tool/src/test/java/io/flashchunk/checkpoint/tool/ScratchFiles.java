package io.flashchunk.checkpoint.tool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Test files under the module's target/ directory. /tmp is often tmpfs, which may refuse
 * O_DIRECT, and the tests expect an ordinary disk file system.
 */
final class ScratchFiles {
    private ScratchFiles() {
    }

    /** A new empty directory of its own for one test. */
    static Path newDirectory() throws IOException {
        Path root = Path.of(System.getProperty("flashchunk.test.scratchDir", "target/scratch"));
        Files.createDirectories(root);
        return Files.createTempDirectory(root, "device-");
    }

    /** A file of exactly {@code bytes} bytes, not all zero, so it is really written. */
    static Path fileOfSize(Path directory, String name, int bytes) throws IOException {
        byte[] content = new byte[bytes];
        for (int i = 0; i < bytes; i++) {
            content[i] = (byte) (i * 31 + 7);
        }
        return Files.write(directory.resolve(name), content);
    }
}

package io.flashchunk.checkpoint.tool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether standard error is a terminal: Java cannot ask directly (System.console() is about stdin and stdout). */
final class Terminal {
    private Terminal() {
    }

    /** On Linux, file descriptor 2 links to /dev/pts/N or /dev/ttyN when it is a terminal. */
    static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }
}

package io.flashchunk.checkpoint.tool;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/**
 * Short reasons for I/O failures. Java's file exceptions often carry only the file name as their
 * message (an AccessDeniedException says just "/dev/sdb"), which reads badly after a path.
 */
final class IoErrors {
    private IoErrors() {
    }

    /** Why the operation failed, without the file name: "Permission denied", "Invalid argument". */
    static String reason(Exception e) {
        if (e instanceof FileSystemException) {
            FileSystemException fse = (FileSystemException) e;
            if (fse.getReason() != null) {
                return fse.getReason();
            }
            if (fse instanceof AccessDeniedException) {
                return "Permission denied";
            }
            if (fse instanceof NoSuchFileException) {
                return "No such file or directory";
            }
            return fse.getClass().getSimpleName();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}

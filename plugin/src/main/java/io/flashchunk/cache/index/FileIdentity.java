package io.flashchunk.cache.index;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * What makes a data file the same file: its path alone is not enough, since a file deleted and
 * written again under the same name holds other bytes. Recovery compares identities to drop entries
 * of files that changed while the cache was not watching.
 *
 * @param inode        the inode number, or -1 where the file system has none
 */
public record FileIdentity(String path, long sizeBytes, long modifiedMillis, long inode) {

    /** The identity of the file at {@code path} now. */
    public static FileIdentity of(Path path) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
        long inode = -1;
        Object key = attributes.fileKey();
        try {
            inode = ((Number) Files.getAttribute(path, "unix:ino")).longValue();
        } catch (UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            inode = key == null ? -1 : key.hashCode();
        }
        return new FileIdentity(path.toAbsolutePath().toString(), attributes.size(),
                attributes.lastModifiedTime().toMillis(), inode);
    }
}

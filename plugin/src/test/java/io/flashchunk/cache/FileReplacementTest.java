package io.flashchunk.cache;

import static io.flashchunk.cache.CacheChecks.assertHit;
import static io.flashchunk.cache.CacheChecks.await;
import static io.flashchunk.cache.CacheChecks.awaitWritten;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;

/**
 * Real files deleted and written again under their names. On ext4 the new file gets the freed inode
 * back, so only its birth time and inode generation tell it from the old one: a cache that took it
 * for the old file grown, or restored the old file's chunks for it, would serve wrong bytes that no
 * checksum catches (the checksums are the old file's, and so are the bytes).
 */
class FileReplacementTest {
    private static final long DEVICE_BYTES = 32L << 20;
    private static final int CHUNK = 16384;
    private static final int ATTEMPTS = 20;

    @Test
    void aLargerFileWrittenAtTheOldInodeNeverGetsTheOldChunks() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES);
             FlashCache cache = fixture.start(c -> { })) {
            for (int attempt = 0; ; attempt++) {
                Path path = fixture.dataDir.resolve("nb-" + attempt + "-big-Data.db");
                Files.write(path, new byte[CHUNK]);
                CachedFile old = cache.registerFile(FileIdentity.of(path));
                long written = cache.stats().engine().appended();
                cache.put(old, 0, ChunkContent.buffer(1, 0, CHUNK), System.nanoTime());
                await("the chunk to be appended", () -> cache.stats().engine().appended() == written + 1);
                assertHit(cache, old, 1, 0, CHUNK);
                if (replacedAtSameInode(path, new byte[4 * CHUNK], attempt)) {
                    CachedFile now = cache.registerFile(FileIdentity.of(path));
                    assertNull(cache.get(now, 0, CHUNK, false), "the old file's chunk served for a new file at its inode");
                    return;
                }
            }
        }
    }

    @Test
    void aFileThatReallyGrowsKeepsItsChunks() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES);
             FlashCache cache = fixture.start(c -> { })) {
            Path path = fixture.dataDir.resolve("nb-2-big-Data.db");
            Files.write(path, new byte[CHUNK]);
            CachedFile early = cache.registerFile(FileIdentity.of(path));
            cache.put(early, 0, ChunkContent.buffer(2, 0, CHUNK), System.nanoTime());
            await("the chunk to be appended", () -> cache.stats().engine().appended() == 1);

            Files.write(path, new byte[3 * CHUNK], StandardOpenOption.APPEND);
            assertSame(early, cache.registerFile(FileIdentity.of(path)), "an appended file is the same file");
            assertEquals(4L * CHUNK, early.identity().sizeBytes(), "the next checkpoint records the grown file");
            assertHit(cache, early, 2, 0, CHUNK);
        }
    }

    @Test
    void aRestartNeverRestoresChunksForAFileWrittenAgainWithTheOldSizeAndTime()
            throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            Path kept = fixture.dataDir.resolve("nb-kept-big-Data.db");
            Files.write(kept, new byte[CHUNK]);
            for (int attempt = 0; ; attempt++) {
                Path path = fixture.dataDir.resolve("nb-" + attempt + "-big-Data.db");
                Files.write(path, new byte[CHUNK]);
                try (FlashCache cache = fixture.start(c -> { })) {
                    CachedFile written = cache.registerFile(FileIdentity.of(path));
                    CachedFile keptFile = cache.registerFile(FileIdentity.of(kept));
                    cache.put(written, 0, ChunkContent.buffer(3, 0, CHUNK), System.nanoTime());
                    cache.put(keptFile, 0, ChunkContent.buffer(4, 0, CHUNK), System.nanoTime());
                    awaitWritten(cache);
                    // Both cached (not a count of entries: after a failed attempt the index still holds
                    // the chunk of that attempt's file, whose file was not restored).
                    assertHit(cache, written, 3, 0, CHUNK);
                    assertHit(cache, keptFile, 4, 0, CHUNK);
                }
                // As a restore from a backup that keeps times would: same name, size and modification time.
                FileTime modified = Files.getLastModifiedTime(path);
                if (replacedAtSameInode(path, new byte[CHUNK], attempt)) {
                    Files.setLastModifiedTime(path, modified);
                    try (FlashCache cache = fixture.start(c -> { })) {
                        assertEquals(java.util.List.of(FileIdentity.of(kept)),
                                cache.files().live().stream().map(CachedFile::identity).toList(),
                                "only the untouched file is restored");
                        assertHit(cache, cache.registerFile(FileIdentity.of(kept)), 4, 0, CHUNK);
                        assertNull(cache.get(cache.registerFile(FileIdentity.of(path)), 0, CHUNK, false),
                                "the old file's chunk restored for a new file");
                    }
                    return;
                }
            }
        }
    }

    @Test
    void identitiesOfTheOldAndTheNewFileDiffer() throws Exception {
        Path dir = Files.createTempDirectory(io.flashchunk.testing.Scratch.dir(), "identity");
        Path path = dir.resolve("f");
        try {
            Files.write(path, new byte[10]);
            FileIdentity old = FileIdentity.of(path);
            assertTrue(old.provable(), "this machine's file system reports birth times: " + old);
            assertTrue(old.sameFileAs(FileIdentity.of(path)));
            assertTrue(old.unchangedOnDisk());
            for (int attempt = 0; !replacedAtSameInode(path, new byte[10], attempt); attempt++) {
                old = FileIdentity.of(path);
            }
            FileIdentity now = FileIdentity.of(path);
            assertEquals(old.inode(), now.inode());
            assertNotEquals(old, now);
            assertTrue(!now.sameFileAs(old) && !old.unchangedOnDisk(), old + " and " + now);
        } finally {
            Files.deleteIfExists(path);
            Files.delete(dir);
        }
    }

    /**
     * Deletes the file and writes {@code content} under its name; true if the new file got the old
     * inode number, as ext4 hands a freed inode out again at once. Another process creating a file
     * in between may take it: then the caller tries again with a new file, up to {@link #ATTEMPTS}.
     */
    static boolean replacedAtSameInode(Path path, byte[] content, int attempt) throws IOException {
        long inode = FileIdentity.of(path).inode();
        Files.delete(path);
        Files.write(path, content);
        if (FileIdentity.of(path).inode() == inode) {
            return true;
        }
        if (attempt + 1 >= ATTEMPTS) {
            fail("in " + ATTEMPTS + " tries the file system never gave a file written again its inode back (last: "
                    + path + ", inode " + inode + "): cannot set up the case");
        }
        return false;
    }
}

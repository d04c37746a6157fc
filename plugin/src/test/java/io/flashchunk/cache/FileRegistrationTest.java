package io.flashchunk.cache;

import static io.flashchunk.cache.CacheChecks.assertHit;
import static io.flashchunk.cache.CacheChecks.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.cache.files.FileRegistry;
import org.junit.jupiter.api.Test;

/**
 * Registering a path again: the same file grown keeps its chunks; another file under the path does
 * not.
 */
class FileRegistrationTest {
    private static final long DEVICE_BYTES = 32L << 20;

    @Test
    void aFileThatGrewKeepsItsChunksAndTakesItsNewIdentity() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES); FlashCache cache = fixture.start(c -> { })) {
            FileIdentity early = new FileIdentity("/data/nb-1-big-Data.db", 1 << 20, 1_000, 77, 5_000, 9);
            CachedFile file = cache.registerFile(early);
            cache.put(file, 0, ChunkContent.buffer(5, 0, 16384), System.nanoTime());
            await("the chunk to be appended", () -> cache.stats().engine().appended() == 1);

            FileIdentity finished = new FileIdentity(early.path(), 3 << 20, 2_000, 77, 5_000, 9);
            assertSame(file, cache.registerFile(finished));
            assertEquals(finished, file.identity(), "the next checkpoint must record the finished file");
            assertHit(cache, file, 5, 0, 16384);
        }
    }

    @Test
    void anotherFileUnderTheSamePathNeverSeesTheOldChunks() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES); FlashCache cache = fixture.start(c -> { })) {
            FileIdentity old = new FileIdentity("/data/nb-2-big-Data.db", 1 << 20, 1_000, 78, 6_000, 10);
            CachedFile oldFile = cache.registerFile(old);
            cache.put(oldFile, 0, ChunkContent.buffer(6, 0, 16384), System.nanoTime());
            await("the chunk to be appended", () -> cache.stats().engine().appended() == 1);

            // Another inode; the same inode again but smaller; the same inode, larger, born later
            // (ext4 reuses a freed inode at once); the same inode and birth time but another
            // generation; and a file whose file system tells nothing that could prove it the same.
            long unknown = FileIdentity.UNKNOWN;
            for (FileIdentity other : new FileIdentity[] {
                    new FileIdentity(old.path(), 1 << 20, 1_000, 79, 6_000, 10),
                    new FileIdentity(old.path(), 1 << 19, 3_000, 79, 6_000, 10),
                    new FileIdentity(old.path(), 1 << 21, 4_000, 79, 8_000, 11),
                    new FileIdentity(old.path(), 1 << 22, 5_000, 79, 8_000, 12),
                    new FileIdentity(old.path(), 1 << 22, 5_000, 79, unknown, unknown)}) {
                CachedFile current = cache.registerFile(other);
                CachedFile again = cache.registerFile(other);
                if (other.provable()) {
                    assertSame(current, again, "the same file registered twice");
                } else {
                    assertNotSame(current, again, "nothing proves an unprovable file the same");
                }
                assertNotSame(oldFile, current);
                assertNull(cache.get(current, 0, 16384, false), "a chunk of the replaced file served for " + other);
                long written = cache.stats().engine().appended();
                cache.put(again, 0, ChunkContent.buffer(7, 0, 16384), System.nanoTime()); // for the next one to be kept from
                await("the chunk to be appended", () -> cache.stats().engine().appended() == written + 1);
                oldFile = again;
            }
            assertNull(cache.files().byId(1), "the replaced file's id leads nowhere");
            assertFalse(cache.files().isLive(1));
        }
    }

    @Test
    void aFilesChunksAreKnownToBeStoredUncompressedOnlyOnceTheCachesUserHasSaidSoSinceTheStart() {
        FileRegistry registry = new FileRegistry();
        FileIdentity restored = new FileIdentity("/data/nb-3-big-Data.db", 1 << 20, 1_000, 80, 7_000, 11);
        assertTrue(registry.restore(7, restored));
        assertFalse(registry.storesUncompressed(7), "recovered from a checkpoint, not yet opened again: its chunks "
                + "kept compressed stay so");
        CachedFile file = registry.register(restored, replaced -> { });
        assertEquals(7, file.id(), "the recovered file, opened again");
        assertFalse(registry.storesUncompressed(7), "opened, but nothing said yet");
        file.storeCompressed(true);
        assertFalse(registry.storesUncompressed(7));
        file.storeCompressed(false);
        assertTrue(registry.storesUncompressed(7), "said: reinsertion stores its chunks as they are");
        assertFalse(registry.storesUncompressed(8), "an id not registered");
        registry.invalidate(file);
        assertFalse(registry.storesUncompressed(7), "a file gone: nothing to store");
    }
}

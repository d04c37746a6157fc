package io.flashchunk.cache;

import static io.flashchunk.cache.FlashChunkCacheTest.assertHit;
import static io.flashchunk.cache.FlashChunkCacheTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.cache.index.FileIdentity;
import org.junit.jupiter.api.Test;

/** Registering a path again: the same file grown keeps its chunks; another file under the path does not. */
class FileRegistrationTest {
    private static final long DEVICE_BYTES = 32L << 20;

    @Test
    void aFileThatGrewKeepsItsChunksAndTakesItsNewIdentity() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            FileIdentity early = new FileIdentity("/data/nb-1-big-Data.db", 1 << 20, 1_000, 77);
            CachedFile file = cache.registerFile(early);
            cache.put(file, 0, ChunkContent.buffer(5, 0, 16384));
            await("the chunk to reach flash", () -> cache.stats().flashWrites() == 1);

            FileIdentity finished = new FileIdentity(early.path(), 3 << 20, 2_000, 77);
            assertSame(file, cache.registerFile(finished));
            assertEquals(finished, file.identity(), "the next checkpoint must record the finished file");
            assertHit(cache, file, 5, 0, 16384);
        }
    }

    @Test
    void anotherFileUnderTheSamePathNeverSeesTheOldChunks() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            FileIdentity old = new FileIdentity("/data/nb-2-big-Data.db", 1 << 20, 1_000, 78);
            CachedFile oldFile = cache.registerFile(old);
            cache.put(oldFile, 0, ChunkContent.buffer(6, 0, 16384));
            await("the chunk to reach flash", () -> cache.stats().flashWrites() == 1);

            // Another inode, and (inode reused) the same inode but smaller: both are other files.
            for (FileIdentity other : new FileIdentity[] {
                    new FileIdentity(old.path(), 1 << 20, 1_000, 79),
                    new FileIdentity(old.path(), 1 << 19, 3_000, 79)}) {
                CachedFile current = cache.registerFile(other);
                CachedFile again = cache.registerFile(other);
                assertSame(current, again);
                assertNotSame(oldFile, current);
                assertNull(cache.get(current, 0), "a chunk of the replaced file served for " + other);
                oldFile = current;
            }
            assertTrue(cache.files().byId(1) == null || cache.files().byId(1).isInvalidated());
            await("the sweep", () -> cache.entries() == 0);
            assertFalse(cache.files().isLive(1));
        }
    }
}

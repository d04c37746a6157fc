package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.checkpoint.CacheRecoveryException;
import io.flashchunk.cache.checkpoint.SpaceLayout;
import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.cache.index.FileIdentity;
import java.nio.file.StandardCopyOption;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;

/** A cache stopped and started again on the same devices serves what it had, and nothing it should not. */
class WarmRestartTest {
    private static final long DEVICE_BYTES = 32L << 20;

    private static void fill(FlashChunkCache cache, CachedFile file, long seed, int chunks) throws Exception {
        for (int i = 0; i < chunks; i++) {
            cache.put(file, i * 16384L, ChunkContent.buffer(seed, i * 16384L, 16384));
        }
        FlashChunkCacheTest.await("writes", () -> cache.stats().queuedChunks() == 0);
    }

    private static void assertServed(FlashChunkCache cache, CachedFile file, long seed, int chunks) {
        for (int i = 0; i < chunks; i++) {
            CachedChunk chunk = cache.get(file, i * 16384L);
            assertNotNull(chunk, "chunk " + i + " of " + file + " after the restart");
            byte[] actual = new byte[chunk.length()];
            chunk.buffer().duplicate().get(actual);
            chunk.release();
            assertArrayEquals(ChunkContent.bytes(seed, i * 16384L, 16384), actual);
        }
    }

    @Test
    void aCleanRestartServesEveryChunkAtOnceAndDropsChangedFiles() throws Exception {
        try (var fixture = new RestartFixture(2, DEVICE_BYTES)) {
            Path kept = fixture.dataFile("kept-Data.db");
            Path deleted = fixture.dataFile("deleted-Data.db");
            Path rewritten = fixture.dataFile("rewritten-Data.db");
            try (FlashChunkCache cache = fixture.start(c -> { })) {
                fill(cache, cache.registerFile(kept), 1, 20);
                fill(cache, cache.registerFile(deleted), 2, 10);
                fill(cache, cache.registerFile(rewritten), 3, 10);
                assertEquals(40, cache.entries());
            }
            Files.delete(deleted);
            Files.setLastModifiedTime(rewritten, FileTime.fromMillis(Files.getLastModifiedTime(rewritten).toMillis() + 5_000));
            try (FlashChunkCache cache = fixture.start(c -> { })) {
                assertEquals(20, cache.stats().recoveredEntries(), "only the unchanged file comes back");
                assertServed(cache, cache.registerFile(kept), 1, 20);
                assertEquals(20, cache.stats().flashHits());
                assertNull(cache.get(cache.registerFile(rewritten), 0), "a changed file is never served from the old entries");
                long used = cache.stats().spaces().stream().mapToLong(s -> s.usedBlocks()).sum();
                assertEquals(20 * 4, used, "the dropped entries' blocks are free again");
            }
        }
    }

    @Test
    void aTornNewestCheckpointFallsBackToTheOlderOne() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            Path first = fixture.dataFile("first-Data.db");
            Path second = fixture.dataFile("second-Data.db");
            long newest;
            Path crashImage = fixture.devices.get(0).resolveSibling(fixture.devices.get(0).getFileName() + ".crash");
            try (FlashChunkCache cache = fixture.start(c -> { })) {
                fill(cache, cache.registerFile(first), 4, 8);
                cache.checkpoint();
                fill(cache, cache.registerFile(second), 5, 8);
                newest = cache.checkpoint().sequence();
                // What the device holds if the node dies now (O_DIRECT writes are on the file already).
                Files.copy(fixture.devices.get(0), crashImage);
            }
            Files.move(crashImage, fixture.devices.get(0), StandardCopyOption.REPLACE_EXISTING);
            // Tear the newest checkpoint's header (the one written last).
            SpaceLayout layout = SpaceLayout.forDevice(DEVICE_BYTES / 4096);
            int newestArea = newest % 2 == 1 ? 0 : 1;
            try (FileChannel channel = FileChannel.open(fixture.devices.get(0), StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap(new byte[] {(byte) 0xFF}), layout.areaStart(newestArea) * 4096 + 40);
            }
            try (FlashChunkCache cache = fixture.start(c -> { })) {
                assertEquals(8, cache.stats().recoveredEntries(), "the older checkpoint knew the first file only");
                assertServed(cache, cache.registerFile(first), 4, 8);
                assertNull(cache.get(cache.registerFile(second), 0));
            }
        }
    }

    /**
     * The compact engine's rule for the same case: spaces whose checkpoints name the file differently
     * cannot tell which is right, so none of the file's chunks is used (the restart logs which file).
     */
    @Test
    void aFileTheCompactSpacesNameDifferentlyIsNotRestoredAtAll() throws Exception {
        try (var fixture = new RestartFixture(2, DEVICE_BYTES)) {
            Path growing = fixture.dataFile("growing-Data.db");
            Path space1Image = fixture.devices.get(1).resolveSibling(fixture.devices.get(1).getFileName() + ".first");
            int chunks = 150; // about two and a half 1 MiB segments: chunks on both spaces
            int id;
            try (FlashCache cache = fixture.start(CacheConfig.Engine.COMPACT, c -> { })) {
                CachedFile file = cache.registerFile(FileIdentity.of(growing));
                id = file.id();
                for (int i = 0; i < chunks; i++) {
                    cache.put(file, i * 16384L, ChunkContent.buffer(8, i * 16384L, 16384), System.nanoTime());
                }
                FlashChunkCacheTest.awaitWritten(cache);
                cache.checkpointNow();
                assertTrue(cache.stats().spaces().stream().allMatch(space -> space.usedBlocks() > 0),
                        "segments on both spaces: " + cache.stats().spaces());
                Files.copy(fixture.devices.get(1), space1Image); // space 1 as the first checkpoint left it
                Files.write(growing, new byte[4096], StandardOpenOption.APPEND);
                assertEquals(id, cache.registerFile(FileIdentity.of(growing)).id(), "the same file, grown");
                cache.checkpointNow();
            }
            // Space 1's second checkpoint lost (torn): it names the file as it was, space 0 as it is.
            Files.move(space1Image, fixture.devices.get(1), StandardCopyOption.REPLACE_EXISTING);
            try (FlashCache cache = fixture.start(CacheConfig.Engine.COMPACT, c -> { })) {
                assertTrue(cache.stats().recoveredEntries() > 0, "both spaces' checkpoints were recovered");
                assertNull(cache.files().byId(id), "the disputed file is not restored");
                CachedFile again = cache.registerFile(FileIdentity.of(growing));
                for (int i = 0; i < chunks; i++) {
                    assertNull(cache.get(again, i * 16384L, 16384, false), "chunk " + i);
                }
            }
        }
    }

    @Test
    void entriesASpaceRecordedForAFileAsItWasBeforeItGrewStayBehind() throws Exception {
        try (var fixture = new RestartFixture(2, DEVICE_BYTES)) {
            Path growing = fixture.dataFile("growing-Data.db");
            Path space1Image = fixture.devices.get(1).resolveSibling(fixture.devices.get(1).getFileName() + ".first");
            long[] perSpace = new long[2];
            try (FlashChunkCache cache = fixture.start(c -> { })) {
                fill(cache, cache.registerFile(growing), 8, 40);
                cache.checkpoint();
                Files.copy(fixture.devices.get(1), space1Image); // space 1 as the first checkpoint left it
                long before = Files.size(growing);
                Files.write(growing, new byte[4096], java.nio.file.StandardOpenOption.APPEND);
                assertEquals(before + 4096, cache.registerFile(growing).identity().sizeBytes(), "the same file, grown");
                cache.checkpoint();
                cache.stats().spaces().forEach(space -> perSpace[space.index()] = space.usedBlocks() / 4);
            }
            // Space 1's second checkpoint lost (torn): it holds the file as it was, space 0 as it is.
            Files.move(space1Image, fixture.devices.get(1), StandardCopyOption.REPLACE_EXISTING);
            assertTrue(perSpace[0] > 0 && perSpace[1] > 0, "chunks on both spaces: " + java.util.Arrays.toString(perSpace));
            try (FlashChunkCache cache = fixture.start(c -> { })) {
                assertEquals(perSpace[0], cache.stats().recoveredEntries(),
                        "only the entries recorded with the file's identity now come back");
            }
        }
    }

    @Test
    void aDeviceOfOtherGeometryIsFormattedOrRefusedInStrictMode() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            Path file = fixture.dataFile("geometry-Data.db");
            try (FlashChunkCache cache = fixture.start(c -> { })) {
                fill(cache, cache.registerFile(file), 6, 4);
            }
            // The operator lowers the configured capacity: the layout no longer matches.
            CacheRecoveryException refused = assertThrows(CacheRecoveryException.class,
                    () -> RestartFixture.start(fixture.devices, c -> c.strict(true), DEVICE_BYTES / 2));
            assertTrue(refused.getMessage().contains(fixture.devices.get(0).toString())
                    && refused.getMessage().contains("capacity changed") && refused.getMessage().contains("strict"),
                    refused.getMessage());
            try (FlashChunkCache cache = RestartFixture.start(fixture.devices, c -> { }, DEVICE_BYTES / 2)) {
                assertEquals(0, cache.stats().recoveredEntries(), "not strict: formatted and started empty");
                assertNull(cache.get(cache.registerFile(file), 0));
            }
        }
    }

    @Test
    void devicesOfTwoDifferentCachesAreNotMixed() throws Exception {
        try (var a = new RestartFixture(1, DEVICE_BYTES);
             var b = new RestartFixture(1, DEVICE_BYTES)) {
            a.start(c -> { }).close();
            b.start(c -> { }).close();
            // Device 0 of cache A and device 0 of cache B, configured as one two-space cache.
            CacheRecoveryException refused = assertThrows(CacheRecoveryException.class,
                    () -> RestartFixture.start(
                            java.util.List.of(a.devices.get(0), b.devices.get(0)), c -> c.strict(true)));
            assertTrue(refused.getMessage().contains("space 0 of 1") || refused.getMessage().contains("instance"),
                    refused.getMessage());
        }
    }
}

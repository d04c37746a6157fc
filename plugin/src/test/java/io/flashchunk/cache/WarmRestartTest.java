package io.flashchunk.cache;

import static io.flashchunk.cache.CacheChecks.assertHit;
import static io.flashchunk.cache.CacheChecks.awaitWritten;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.cache.space.CacheRecoveryException;
import io.flashchunk.testing.Scratch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A cache stopped and started again on the same devices serves what it had, and nothing it should not. */
class WarmRestartTest {
    private static final long DEVICE_BYTES = 32L << 20;
    private static final int CHUNK = 16384;

    private static CachedFile fill(FlashCache cache, Path path, long seed, int chunks) throws Exception {
        CachedFile file = cache.registerFile(FileIdentity.of(path));
        for (int i = 0; i < chunks; i++) {
            cache.put(file, (long) i * CHUNK, ChunkContent.buffer(seed, (long) i * CHUNK, CHUNK), System.nanoTime());
        }
        awaitWritten(cache);
        return file;
    }

    @Test
    void aCleanRestartServesEveryChunkAtOnceAndDropsChangedFiles() throws Exception {
        try (var fixture = new RestartFixture(2, DEVICE_BYTES)) {
            Path kept = fixture.dataFile("kept-Data.db");
            Path deleted = fixture.dataFile("deleted-Data.db");
            Path rewritten = fixture.dataFile("rewritten-Data.db");
            try (FlashCache cache = fixture.start(c -> { })) {
                fill(cache, kept, 1, 40);
                fill(cache, deleted, 2, 20);
                fill(cache, rewritten, 3, 20);
                assertEquals(80, cache.entries());
            }
            Files.delete(deleted);
            Files.setLastModifiedTime(rewritten, FileTime.fromMillis(Files.getLastModifiedTime(rewritten).toMillis() + 5_000));
            try (FlashCache cache = fixture.start(c -> { })) {
                assertEquals(List.of(FileIdentity.of(kept)), cache.files().live().stream().map(CachedFile::identity).toList(),
                        "only the unchanged file is restored");
                CachedFile file = cache.registerFile(FileIdentity.of(kept));
                for (int i = 0; i < 40; i++) {
                    assertHit(cache, file, 1, (long) i * CHUNK, CHUNK);
                }
                assertEquals(40, cache.stats().flashHits() + cache.stats().memoryHits());
                CachedFile changed = cache.registerFile(FileIdentity.of(rewritten));
                for (int i = 0; i < 20; i++) {
                    assertNull(cache.get(changed, (long) i * CHUNK, CHUNK, false), "a changed file's chunk " + i);
                }
            }
        }
    }

    /**
     * A file that grew between two checkpoints, one of them torn on one space: spaces whose
     * checkpoints name the file differently cannot tell which is right, so none of the file's chunks
     * is used (the restart logs which file).
     */
    @Test
    void aFileTheSpacesNameDifferentlyIsNotRestoredAtAll() throws Exception {
        try (var fixture = new RestartFixture(2, DEVICE_BYTES)) {
            Path growing = fixture.dataFile("growing-Data.db");
            Path space1Image = fixture.devices.get(1).resolveSibling(fixture.devices.get(1).getFileName() + ".first");
            int chunks = 150; // about two and a half 1 MiB segments: chunks on both spaces
            int id;
            try (FlashCache cache = fixture.start(c -> { })) {
                CachedFile file = cache.registerFile(FileIdentity.of(growing));
                id = file.id();
                for (int i = 0; i < chunks; i++) {
                    cache.put(file, i * 16384L, ChunkContent.buffer(8, i * 16384L, 16384), System.nanoTime());
                }
                awaitWritten(cache);
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
            try (FlashCache cache = fixture.start(c -> { })) {
                assertTrue(cache.stats().recoveredEntries() > 0, "both spaces' checkpoints were recovered");
                assertNull(cache.files().byId(id), "the disputed file is not restored");
                CachedFile again = cache.registerFile(FileIdentity.of(growing));
                for (int i = 0; i < chunks; i++) {
                    assertNull(cache.get(again, i * 16384L, 16384, false), "chunk " + i);
                }
            }
        }
    }

    /** O_DIRECT files: a device added and the list reordered (strict: nothing of the cache may be dropped), then one removed. */
    @Test
    void aDeviceAddedTheListReorderedAndADeviceRemovedKeepTheChunksOfEveryDeviceThatStays() throws Exception {
        try (var fixture = new RestartFixture(2, DEVICE_BYTES)) {
            Path data = fixture.dataFile("devices-Data.db");
            try (FlashCache cache = fixture.start(c -> { })) {
                fill(cache, data, 7, 300); // about five 1 MiB segments: both devices hold some
                assertEquals(300, cache.entries());
            }
            Path added = Scratch.file("restart-added", DEVICE_BYTES);
            try {
                List<Path> changed = List.of(fixture.devices.get(1), added, fixture.devices.get(0));
                try (FlashCache cache = RestartFixture.startCompact(changed, c -> c.strict(true))) {
                    assertEquals(300, cache.stats().recoveredEntries(), "every chunk, on either device");
                    CachedFile file = cache.registerFile(FileIdentity.of(data));
                    for (int i = 0; i < 300; i++) {
                        assertHit(cache, file, 7, (long) i * CHUNK, CHUNK);
                    }
                }
                try (FlashCache cache = RestartFixture.startCompact(List.of(added, fixture.devices.get(0)),
                        c -> c.strict(true))) {
                    long kept = cache.stats().recoveredEntries();
                    assertTrue(kept > 0 && kept < 300, "the first device's chunks, not the removed one's: " + kept);
                    CachedFile file = cache.registerFile(FileIdentity.of(data));
                    int hits = 0;
                    for (int i = 0; i < 300; i++) {
                        CachedChunk chunk = cache.get(file, (long) i * CHUNK, CHUNK, false);
                        if (chunk != null) {
                            try {
                                assertArrayEquals(ChunkContent.bytes(7, (long) i * CHUNK, CHUNK), ChunkContent.read(chunk));
                            } finally {
                                chunk.release();
                            }
                            hits++;
                        }
                    }
                    assertEquals(kept, hits);
                }
            } finally {
                Files.deleteIfExists(added);
            }
        }
    }

    /**
     * Two devices of one cache each run on their own, then listed together: each run gave out file ids
     * from where they parted, so one id names another file on each. Only one run's chunks are kept.
     */
    @Test
    void devicesRunApartAndListedTogetherAgainNeverServeAnotherFilesBytes() throws Exception {
        try (var fixture = new RestartFixture(2, DEVICE_BYTES)) {
            Path a = fixture.devices.get(0);
            Path d = fixture.devices.get(1);
            try (FlashCache cache = fixture.start(c -> { })) {
                assertEquals(0, cache.entries());
            }
            Path gone = fixture.dataFile("g-Data.db");
            int goneId;
            try (FlashCache cache = RestartFixture.startCompact(List.of(a), c -> { })) {
                CachedFile file = fill(cache, gone, 1, 20);
                goneId = file.id();
                fill(cache, fixture.dataFile("h-Data.db"), 3, 20);
                cache.invalidateFile(file);
                cache.checkpointNow();
            }
            Files.delete(gone);
            Path f = fixture.dataFile("f-Data.db");
            try (FlashCache cache = RestartFixture.startCompact(List.of(d), c -> { })) {
                assertEquals(goneId, fill(cache, f, 2, 20).id(), "the run on d gives the same id to another file");
                cache.checkpointNow();
            }
            assertThrows(CacheRecoveryException.class,
                    () -> RestartFixture.startCompact(List.of(a, d), c -> c.strict(true)).close());
            try (FlashCache cache = RestartFixture.startCompact(List.of(a, d), c -> { })) {
                CachedFile file = cache.registerFile(FileIdentity.of(f));
                for (int i = 0; i < 20; i++) {
                    CachedChunk chunk = cache.get(file, (long) i * CHUNK, CHUNK, false);
                    if (chunk != null) {
                        try {
                            assertArrayEquals(ChunkContent.bytes(2, (long) i * CHUNK, CHUNK), ChunkContent.read(chunk),
                                    "f's chunk " + i);
                        } finally {
                            chunk.release();
                        }
                    }
                }
            }
        }
    }

    @Test
    void aDeviceOfOtherGeometryIsFormattedOrRefusedInStrictMode() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            Path data = fixture.dataFile("geometry-Data.db");
            try (FlashCache cache = fixture.start(c -> { })) {
                fill(cache, data, 6, 4);
            }
            // The operator lowers the configured capacity: the layout no longer matches.
            CacheRecoveryException refused = assertThrows(CacheRecoveryException.class,
                    () -> RestartFixture.startCompact(fixture.devices, c -> c.strict(true), DEVICE_BYTES / 2));
            assertTrue(refused.getMessage().contains(fixture.devices.get(0).toString())
                    && refused.getMessage().contains("(capacity changed")
                    && refused.getMessage().contains("strict"), refused.getMessage());
            try (FlashCache cache = RestartFixture.startCompact(fixture.devices, c -> { }, DEVICE_BYTES / 2)) {
                assertEquals(0, cache.stats().recoveredEntries(), "not strict: formatted and started empty");
                assertNull(cache.get(cache.registerFile(FileIdentity.of(data)), 0, CHUNK, false));
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
                    () -> RestartFixture.startCompact(List.of(a.devices.get(0), b.devices.get(0)), c -> c.strict(true)));
            assertTrue(refused.getMessage().contains("space 0 of 1") || refused.getMessage().contains("instance"),
                    refused.getMessage());
        }
    }
}

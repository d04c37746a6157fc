package io.flashchunk.cache;

import static io.flashchunk.cache.CacheChecks.awaitWritten;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.testing.FaultyDevice;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A device that returns stale bytes (a write it acknowledged but lost) never makes the cache serve
 * them: the record header names the segment's use it was written in, so a record of an earlier use
 * of a reused segment is refused, and the read is a miss.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StaleReadTest {
    private static final int CHUNK = 16384;

    /**
     * A segment reused for another file's chunks, read back with its earlier use's bytes. The record there names another key and an older use of the segment, so the read
     * is refused: a miss, never the other file's chunk.
     */
    @Test
    void aRecordReadBackWithItsSegmentsEarlierUseIsAMissNotAWrongChunk() throws Exception {
        int chunks = 300; // 1 MiB segments of about 60 chunks on a 6 MiB device: the second file reuses the first's
        try (var fixture = new RestartFixture(1, 6L << 20)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (FlashCache cache = fixture.startWrapped(c -> { },
                    (i, device) -> faulty[0] = new FaultyDevice(device), System::nanoTime)) {
                CachedFile first = cache.registerFile(FileIdentity.of(fixture.dataFile("nb-1-big-Data.db")));
                for (int i = 0; i < chunks; i++) {
                    cache.put(first, (long) i * CHUNK, ChunkContent.buffer(1, (long) i * CHUNK, CHUNK), System.nanoTime());
                }
                awaitWritten(cache);
                cache.invalidateFile(first);

                faulty[0].staleReads(true);
                CachedFile second = cache.registerFile(FileIdentity.of(fixture.dataFile("nb-2-big-Data.db")));
                for (int i = 0; i < chunks; i++) {
                    long position = (long) i * CHUNK;
                    // Read, missed, then offered, as a real read does: admission weighs the read against
                    // the first file's chunks, never read.
                    assertNull(cache.get(second, position, CHUNK, false));
                    cache.put(second, position, ChunkContent.buffer(2, position, CHUNK), System.nanoTime());
                }
                awaitWritten(cache);
                assertTrue(cache.stats().engine().segmentsReclaimed() > 0, "no segment of the first file was reused: " + cache.stats());

                int served = 0;
                for (int i = 0; i < chunks; i++) {
                    CachedChunk chunk = cache.get(second, (long) i * CHUNK, CHUNK, false);
                    if (chunk != null) {
                        assertArrayEquals(ChunkContent.bytes(2, (long) i * CHUNK, CHUNK), ChunkContent.read(chunk),
                                "chunk " + i);
                        chunk.release();
                        served++;
                    }
                }
                long refused = cache.stats().staleReads();
                assertTrue(refused > 0, "the device returned no stale record (served " + served + "): " + cache.stats());
                assertTrue(served + refused <= chunks);
                assertEquals(0, cache.stats().engine().damagedRecords(), "a record of an earlier use is whole: refused, not damaged");
            }
        }
    }
}

package io.flashchunk.cache;

import static io.flashchunk.cache.FlashChunkCacheTest.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.testing.FaultyDevice;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A device that returns stale bytes (a write it acknowledged but lost) never makes the cache serve
 * them: the chunk's checksum catches the old content of a reused run, and the read is a miss.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StaleReadTest {
    private static final int CHUNK = 16384;
    private static final int CHUNKS = 40;

    @Test
    void aRunReadBackWithTheBytesOfItsPreviousChunkIsAMissNotAWrongChunk() throws Exception {
        try (var fixture = new RestartFixture(1, 1L << 20)) { // room for about 50 chunks: file 2 reuses file 1's runs
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (FlashChunkCache cache = fixture.startWrapped(c -> c.overflowRead(false),
                    (i, device) -> faulty[0] = new FaultyDevice(device))) {
                CachedFile first = cache.registerFile(fixture.dataFile("nb-1-big-Data.db"));
                for (int i = 0; i < CHUNKS; i++) {
                    cache.put(first, (long) i * CHUNK, ChunkContent.buffer(1, (long) i * CHUNK, CHUNK));
                }
                await("the first file's writes", () -> cache.stats().queuedChunks() == 0);
                cache.invalidateFile(first);
                cache.checkpoint(); // its runs are free once no checkpoint names them

                faulty[0].staleReads(true);
                CachedFile second = cache.registerFile(fixture.dataFile("nb-2-big-Data.db"));
                for (int i = 0; i < CHUNKS; i++) {
                    cache.put(second, (long) i * CHUNK, ChunkContent.buffer(2, (long) i * CHUNK, CHUNK));
                }
                await("the second file's writes", () -> cache.stats().queuedChunks() == 0);

                int served = 0;
                for (int i = 0; i < CHUNKS; i++) {
                    CachedChunk chunk = cache.get(second, (long) i * CHUNK);
                    if (chunk != null) {
                        assertArrayEquals(ChunkContent.bytes(2, (long) i * CHUNK, CHUNK), ChunkContent.read(chunk),
                                "chunk " + i);
                        chunk.release();
                        served++;
                    }
                }
                long caught = cache.stats().checksumErrors();
                assertTrue(caught > 0, "the device returned no stale run (served " + served + ")");
                assertTrue(served + caught <= CHUNKS);
            }
        }
    }
}

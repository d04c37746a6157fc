package io.flashchunk.cache;

import static io.flashchunk.cache.FlashChunkCacheTest.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.testing.FaultyDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A checkpoint that fails part-way has still made some of its headers durable (a space done before
 * the failing one; or the failing one's header, written before its flush reported the error). A
 * crash then brings those back, so every run they name must stay unused, and the next checkpoint
 * must not reuse the failed one's sequence.
 */
class FailedCheckpointTest {
    private static final long DEVICE_BYTES = 32L << 20;
    private static final int CHUNK = 16384;

    private static void fill(FlashChunkCache cache, CachedFile file, long seed, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            cache.put(file, (long) i * CHUNK, ChunkContent.buffer(seed, (long) i * CHUNK, CHUNK));
        }
        await("the writes", () -> cache.stats().queuedChunks() == 0);
    }

    @Test
    void runsThatADurableHalfOfAFailedCheckpointNamesAreNeverReused() throws Exception {
        try (var fixture = new RestartFixture(2, DEVICE_BYTES)) {
            Path data = fixture.dataFile("nb-1-big-Data.db");
            Path other = fixture.dataFile("nb-2-big-Data.db");
            FaultyDevice[] faulty = new FaultyDevice[2];
            List<Path> crashImages = new ArrayList<>();
            // Checkpoints only when the test asks: none may cover the failed one meanwhile.
            try (FlashChunkCache cache = fixture.startWrapped(
                    c -> c.checkpointIntervalMillis(3_600_000).minCheckpointIntervalMillis(3_600_000),
                    (i, device) -> faulty[i] = new FaultyDevice(device))) {
                CachedFile file = cache.registerFile(data);
                fill(cache, file, 1, 0, 16);
                assertEquals(1, cache.checkpoint().sequence());
                fill(cache, file, 1, 16, 48);
                // Space 1 finishes last: its header is written, then its flush fails.
                faulty[1].failNth(FaultyDevice.Op.FLUSH, 2);
                assertThrows(IOException.class, cache::checkpoint);
                assertEquals(1, faulty[1].injected());

                // The chunks only the failed checkpoint names go (as an early-opened file's last chunk would)...
                for (int i = 16; i < 48; i++) {
                    cache.invalidatePosition(file, (long) i * CHUNK);
                }
                // ...and another file's chunks fill both devices: freed runs are reused.
                fill(cache, cache.registerFile(other), 2, 0, (int) (2 * DEVICE_BYTES / CHUNK));
                for (Path device : fixture.devices) {
                    Path image = device.resolveSibling(device.getFileName() + ".crash");
                    Files.copy(device, image); // what a SIGKILL now leaves
                    crashImages.add(image);
                }
            }
            for (int d = 0; d < fixture.devices.size(); d++) {
                Files.move(crashImages.get(d), fixture.devices.get(d), StandardCopyOption.REPLACE_EXISTING);
            }
            try (FlashChunkCache cache = fixture.start(c -> { })) {
                CachedFile file = cache.registerFile(data);
                int served = 0;
                for (int i = 0; i < 48; i++) {
                    CachedChunk chunk = cache.get(file, (long) i * CHUNK);
                    if (chunk != null) {
                        byte[] bytes = new byte[chunk.length()];
                        chunk.buffer().duplicate().get(bytes);
                        chunk.release();
                        assertArrayEquals(ChunkContent.bytes(1, (long) i * CHUNK, CHUNK), bytes, "chunk " + i);
                        served++;
                    }
                }
                assertEquals(0, cache.stats().checksumErrors(),
                        "recovered entries pointed at runs reused after the failed checkpoint: " + cache.stats());
                assertTrue(served >= 16, "the first checkpoint's chunks come back: " + served);
            }
        }
    }

    @Test
    void aFailedCheckpointsSequenceIsNeverUsedAgain() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (FlashChunkCache cache = fixture.startWrapped(c -> { }, (i, device) -> faulty[i] = new FaultyDevice(device))) {
                fill(cache, cache.registerFile(fixture.dataFile("nb-1-big-Data.db")), 1, 0, 4);
                assertEquals(1, cache.checkpoint().sequence());
                faulty[0].failNth(FaultyDevice.Op.FLUSH, 2); // the header is on the device; its flush fails
                assertThrows(IOException.class, cache::checkpoint);
                assertEquals(3, cache.checkpoint().sequence(),
                        "the failed checkpoint's header may be durable: its sequence is spent");
            }
        }
    }
}

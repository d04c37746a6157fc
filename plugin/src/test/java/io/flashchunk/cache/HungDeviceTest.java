package io.flashchunk.cache;

import static io.flashchunk.cache.FlashChunkCacheTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.DeviceTimeoutException;
import io.flashchunk.testing.FaultyDevice;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A device that stops answering makes the cache's operations fail within the device timeout, never
 * wait for good: a hung flash device must not hang the node's checkpoints, start or shutdown. The
 * JUnit timeouts are only the backstop that turns a hang into a failure.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HungDeviceTest {
    private static final long DEVICE_BYTES = 32L << 20;
    private static final long TIMEOUT_MILLIS = 300;

    private static FlashChunkCache start(RestartFixture fixture, FaultyDevice[] faulty) throws IOException {
        return fixture.startWrapped(c -> c.deviceTimeoutMillis(TIMEOUT_MILLIS).checkpointIntervalMillis(3_600_000)
                .minCheckpointIntervalMillis(3_600_000), (i, device) -> faulty[i] = new FaultyDevice(device));
    }

    private static void fill(FlashChunkCache cache, CachedFile file, int chunks) throws Exception {
        for (int i = 0; i < chunks; i++) {
            cache.put(file, i * 16384L, ChunkContent.buffer(3, i * 16384L, 16384));
        }
        await("the writes", () -> cache.stats().queuedChunks() == 0);
    }

    @Test
    void aCheckpointWhoseWritesHangFailsAndTheNextOneWorksOnceTheDeviceAnswers() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (FlashChunkCache cache = start(fixture, faulty)) {
                fill(cache, cache.registerFile(fixture.dataFile("nb-1-big-Data.db")), 8);
                CompletableFuture<Void> gate = faulty[0].hang(FaultyDevice.Op.WRITE);
                IOException e = assertThrows(IOException.class, cache::checkpoint);
                assertTrue(e instanceof DeviceTimeoutException && e.getMessage().contains("did not finish in 300 ms"),
                        e.toString());
                gate.complete(null);
                assertEquals(2, cache.checkpoint().sequence(), "the device answers again; the failed one's number is spent");
            }
        }
    }

    @Test
    void aFlushThatHangsFailsTheCheckpointAndFlushesFailAtOnceUntilItReturns() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (FlashChunkCache cache = start(fixture, faulty)) {
                fill(cache, cache.registerFile(fixture.dataFile("nb-1-big-Data.db")), 8);
                CompletableFuture<Void> gate = faulty[0].hang(FaultyDevice.Op.FLUSH);
                IOException first = assertThrows(DeviceTimeoutException.class, cache::checkpoint);
                assertTrue(first.getMessage().contains("flush"), first.getMessage());
                IOException second = assertThrows(DeviceTimeoutException.class, cache::checkpoint);
                assertTrue(second.getMessage().contains("has not returned"), second.getMessage());
                assertEquals(1, faulty[0].held(), "the second flush never reached the device");
                gate.complete(null);
                await("the stuck flush to return", () -> {
                    try {
                        cache.checkpoint();
                        return true;
                    } catch (DeviceTimeoutException stillStuck) {
                        return false;
                    } catch (IOException other) {
                        throw new java.io.UncheckedIOException(other);
                    }
                });
            }
        }
    }

    @Test
    void closingOnAHungDeviceReturns() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            FlashChunkCache cache = start(fixture, faulty);
            fill(cache, cache.registerFile(fixture.dataFile("nb-1-big-Data.db")), 8);
            faulty[0].hang(FaultyDevice.Op.WRITE);
            faulty[0].hang(FaultyDevice.Op.FLUSH);
            cache.close(); // its last checkpoint times out; the JUnit timeout fails a close that hangs
            assertEquals(1, cache.stats().checkpointFailures());
        }
    }

    @Test
    void startingOnADeviceWhoseReadsHangFailsInsteadOfHanging() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (FlashChunkCache cache = start(fixture, faulty)) {
                fill(cache, cache.registerFile(fixture.dataFile("nb-1-big-Data.db")), 8);
            }
            IOException e = assertThrows(IOException.class, () -> fixture.startWrapped(
                    c -> c.deviceTimeoutMillis(TIMEOUT_MILLIS), (i, device) -> hungReads(device)));
            assertTrue(e.getMessage().contains("no answer in 300 ms"), e.getMessage());
        }
    }

    private static BlockDevice hungReads(BlockDevice device) {
        FaultyDevice faulty = new FaultyDevice(device);
        faulty.hang(FaultyDevice.Op.READ);
        return faulty;
    }
}

package io.flashchunk.cache;

import static io.flashchunk.cache.CacheChecks.await;
import static io.flashchunk.cache.CacheChecks.awaitWritten;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.FaultyDevice;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A device that stops answering makes the cache's operations fail within the device timeout, never
 * wait for good: a hung flash device must not hang the node's checkpoints, start or shutdown. The JUnit timeouts are only the backstop that turns a hang into a failure; they run
 * the test in a thread of their own, so a test stuck in an uninterruptible wait fails too.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class HungDeviceTest {
    private static final long DEVICE_BYTES = 32L << 20;
    private static final long TIMEOUT_MILLIS = 300;
    private static final Consumer<CacheConfig.Builder> SETTINGS = c -> c.deviceTimeoutMillis(TIMEOUT_MILLIS)
            .checkpointIntervalMillis(3_600_000);

    private static FlashCache start(RestartFixture fixture, FaultyDevice[] faulty)
            throws IOException {
        return fixture.startWrapped(SETTINGS, (i, device) -> faulty[i] = new FaultyDevice(device), System::nanoTime);
    }

    private static CachedFile file(FlashCache cache, RestartFixture fixture) throws IOException {
        return cache.registerFile(FileIdentity.of(fixture.dataFile("nb-1-big-Data.db")));
    }

    private static void fill(FlashCache cache, CachedFile file, int chunks) throws Exception {
        for (int i = 0; i < chunks; i++) {
            cache.put(file, i * 16384L, ChunkContent.buffer(3, i * 16384L, 16384), System.nanoTime());
        }
        awaitWritten(cache);
    }

    /** Waits until a checkpoint succeeds: one that failed may still be giving up on the device. */
    private static void awaitCheckpoint(FlashCache cache) throws Exception {
        await("a checkpoint to succeed", () -> {
            try {
                cache.checkpointNow();
                return true;
            } catch (IOException stillFailing) {
                return false;
            }
        });
    }

    @Test
    void aCheckpointWhoseWritesHangFailsAndTheNextOneWorksOnceTheDeviceAnswers()
            throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (FlashCache cache = start(fixture, faulty)) {
                fill(cache, file(cache, fixture), 8);
                long before = cache.stats().engine().checkpoints();
                CompletableFuture<Void> gate = faulty[0].hang(FaultyDevice.Op.WRITE);
                IOException e = assertThrows(IOException.class, cache::checkpointNow);
                assertTrue(e.getMessage().contains("300 ms"), e.toString());
                gate.complete(null);
                awaitCheckpoint(cache);
                assertTrue(cache.stats().engine().checkpoints() > before, "the device answers again: checkpoints are durable");
            }
        }
    }

    @Test
    void aFlushThatHangsFailsTheCheckpointAndFlushesFailAtOnceUntilItReturns()
            throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (FlashCache cache = start(fixture, faulty)) {
                fill(cache, file(cache, fixture), 8);
                CompletableFuture<Void> gate = faulty[0].hang(FaultyDevice.Op.FLUSH);
                IOException first = assertThrows(IOException.class, cache::checkpointNow);
                IOException second = assertThrows(IOException.class, cache::checkpointNow);
                assertEquals(1, faulty[0].held(), "the second flush never reached the device");
                gate.complete(null);
                awaitCheckpoint(cache);
            }
        }
    }

    @Test
    void closingOnAHungDeviceReturns() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            FlashCache cache = start(fixture, faulty);
            fill(cache, file(cache, fixture), 8);
            faulty[0].hang(FaultyDevice.Op.WRITE);
            faulty[0].hang(FaultyDevice.Op.FLUSH);
            cache.close(); // its last checkpoint times out; the JUnit timeout fails a close that hangs
            assertEquals(1, cache.stats().engine().failedCheckpoints());
        }
    }

    @Test
    void startingOnADeviceWhoseReadsHangFailsInsteadOfHanging() throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (FlashCache cache = start(fixture, faulty)) {
                fill(cache, file(cache, fixture), 8);
            }
            IOException e = assertThrows(IOException.class, () -> fixture.startWrapped(
                    c -> c.deviceTimeoutMillis(TIMEOUT_MILLIS), (i, device) -> hungReads(device), System::nanoTime));
            assertTrue(e.getMessage().contains("300 ms"), e.getMessage());
        }
    }

    private static BlockDevice hungReads(BlockDevice device) {
        FaultyDevice faulty = new FaultyDevice(device);
        faulty.hang(FaultyDevice.Op.READ);
        return faulty;
    }
}

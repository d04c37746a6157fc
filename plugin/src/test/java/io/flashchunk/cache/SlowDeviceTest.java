package io.flashchunk.cache;

import static io.flashchunk.cache.FlashChunkCacheTest.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.health.DeviceBreaker;
import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.testing.FaultyDevice;
import io.flashchunk.testing.ManualClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The slow-device breaker in a cache: a flash device slower than the reads it replaces, failing, or
 * hung under caller-thread reads is taken out of use (hits become misses, nothing more is asked of
 * it), reported in the stats, and tried again after the retry time. The device's slowness is time
 * passing on the cache's manual clock, so nothing sleeps.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SlowDeviceTest {
    private static final int CHUNK = 16384;
    private static final int CHUNKS = 32;
    private final ManualClock clock = new ManualClock();

    private FlashChunkCache start(RestartFixture fixture, FaultyDevice[] faulty, Consumer<CacheConfig.Builder> more)
            throws Exception {
        return fixture.startWrapped(c -> {
            c.slowReadMillis(2).slowDeviceRetryMillis(60_000).readTimeoutMillis(200).overflowRead(false);
            more.accept(c);
        }, (i, device) -> faulty[i] = new FaultyDevice(device), clock);
    }

    /** Caches the file's chunks as misses whose file reads took {@code missMillis}. */
    private void fill(FlashChunkCache cache, CachedFile file, long missMillis) throws Exception {
        for (int i = 0; i < CHUNKS; i++) {
            cache.put(file, (long) i * CHUNK, ChunkContent.buffer(7, (long) i * CHUNK, CHUNK),
                    System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(missMillis));
        }
        await("the writes", () -> cache.stats().queuedChunks() == 0);
        clock.advance(Duration.ofSeconds(1));
    }

    /** One judged period of hits: enough reads, then the period's end; returns how many hit. */
    private int period(FlashChunkCache cache, CachedFile file) {
        int hits = 0;
        for (int i = 0; i <= DeviceBreaker.MIN_SAMPLES; i++) {
            if (i == DeviceBreaker.MIN_SAMPLES) {
                clock.advance(Duration.ofSeconds(1));
            }
            long position = (long) (i % CHUNKS) * CHUNK;
            CachedChunk chunk = cache.get(file, position);
            if (chunk != null) {
                assertArrayEquals(ChunkContent.bytes(7, position, CHUNK), ChunkContent.read(chunk));
                chunk.release();
                hits++;
            }
        }
        return hits;
    }

    @Test
    void aDeviceSlowerThanTheReadsItReplacesIsBypassedThenTriedAgain() throws Exception {
        try (var fixture = new RestartFixture(1, 32L << 20)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (FlashChunkCache cache = start(fixture, faulty, c -> { })) {
                CachedFile file = cache.registerFile(fixture.dataFile("nb-1-big-Data.db"));
                fill(cache, file, 1);
                assertEquals(DeviceBreaker.MIN_SAMPLES + 1, period(cache, file), "a fast device serves every hit");

                AtomicInteger deviceReads = new AtomicInteger();
                faulty[0].delay(FaultyDevice.Op.READ, () -> {
                    deviceReads.incrementAndGet();
                    clock.advance(Duration.ofMillis(50));
                });
                period(cache, file);
                assertEquals(0, cache.stats().devicesBypassed(), "one slow period may be a pause");
                period(cache, file);
                assertEquals(1, cache.stats().devicesBypassed(), "50 ms reads against 1 ms misses");
                assertEquals(1, cache.stats().deviceBypasses());

                int readsWhenTripped = deviceReads.get();
                assertEquals(0, period(cache, file), "hits are misses while the device is out of use");
                assertEquals(readsWhenTripped, deviceReads.get(), "and the device is not read");
                assertTrue(cache.stats().bypassedReads() >= DeviceBreaker.MIN_SAMPLES);

                clock.advance(Duration.ofSeconds(60));
                period(cache, file);
                assertTrue(deviceReads.get() > readsWhenTripped, "tried again after the retry time");
                assertEquals(2, cache.stats().deviceBypasses(), "still slow: out of use again");

                faulty[0].delay(FaultyDevice.Op.READ, null);
                clock.advance(Duration.ofSeconds(60));
                period(cache, file);
                assertEquals(0, cache.stats().devicesBypassed(), "fast again: in use");
                assertEquals(DeviceBreaker.MIN_SAMPLES + 1, period(cache, file));
            }
        }
    }

    @Test
    void aDeviceSlowerThanTheFloorButFasterThanTheMissesStaysInUse() throws Exception {
        try (var fixture = new RestartFixture(1, 32L << 20)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (FlashChunkCache cache = start(fixture, faulty, c -> { })) {
                CachedFile file = cache.registerFile(fixture.dataFile("nb-1-big-Data.db"));
                fill(cache, file, 40);
                faulty[0].delay(FaultyDevice.Op.READ, () -> clock.advance(Duration.ofMillis(10)));
                assertEquals(DeviceBreaker.MIN_SAMPLES + 1, period(cache, file));
                assertEquals(DeviceBreaker.MIN_SAMPLES + 1, period(cache, file));
                assertEquals(0, cache.stats().deviceBypasses(), "10 ms reads replace 40 ms ones: keep them");
            }
        }
    }

    @Test
    void aDeviceReturningErrorsIsBypassed() throws Exception {
        try (var fixture = new RestartFixture(1, 32L << 20)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (FlashChunkCache cache = start(fixture, faulty, c -> { })) {
                CachedFile file = cache.registerFile(fixture.dataFile("nb-1-big-Data.db"));
                fill(cache, file, 1);
                faulty[0].failing(FaultyDevice.Op.READ, true);
                assertEquals(0, period(cache, file), "a failed read is a miss");
                period(cache, file);
                assertEquals(1, cache.stats().devicesBypassed());
                int failed = faulty[0].injected();
                period(cache, file);
                assertEquals(failed, faulty[0].injected(), "no read reaches the failing device while bypassed");

                faulty[0].failing(FaultyDevice.Op.READ, false);
                clock.advance(Duration.ofSeconds(60));
                period(cache, file);
                assertEquals(0, cache.stats().devicesBypassed());
                assertEquals(DeviceBreaker.MIN_SAMPLES + 1, period(cache, file), "the entries stayed: hits again");
            }
        }
    }

    @Test
    void aCallerThreadReadThatHangsStopsNewReadsInsteadOfHangingEveryReader() throws Exception {
        try (var fixture = new RestartFixture(1, 32L << 20)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (FlashChunkCache cache = start(fixture, faulty, c -> c.readInCallerThread(true))) {
                CachedFile file = cache.registerFile(fixture.dataFile("nb-1-big-Data.db"));
                fill(cache, file, 1);
                CompletableFuture<Void> gate = faulty[0].hang(FaultyDevice.Op.READ);
                CountDownLatch entered = new CountDownLatch(1);
                CompletableFuture<CachedChunk> stuck = CompletableFuture.supplyAsync(() -> {
                    entered.countDown();
                    return cache.get(file, 0);
                });
                assertTrue(entered.await(10, TimeUnit.SECONDS));
                await("the first read to reach the hung device", () -> faulty[0].held() == 1);

                clock.advance(Duration.ofMillis(300));
                assertNull(cache.get(file, CHUNK), "a second reader is not held behind the hung device");
                assertEquals(1, faulty[0].held(), "no new read reached it");
                assertEquals(1, cache.stats().devicesBypassed());

                gate.complete(null);
                CachedChunk late = stuck.get(10, TimeUnit.SECONDS);
                assertNotNull(late, "the hung read finishes when the device answers");
                assertArrayEquals(ChunkContent.bytes(7, 0, CHUNK), ChunkContent.read(late));
                late.release();
            }
        }
    }
}

package io.flashchunk.cache;

import static io.flashchunk.cache.CacheChecks.await;
import static io.flashchunk.cache.CacheChecks.awaitWritten;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.cache.health.DeviceBreaker;
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
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SlowDeviceTest {
    private static final int CHUNK = 16384;
    private static final int CHUNKS = 32;
    private final ManualClock clock = new ManualClock();

    private FlashCache start(RestartFixture fixture, FaultyDevice[] faulty,
                             Consumer<CacheConfig.Builder> more) throws Exception {
        return fixture.startWrapped(c -> {
            c.slowReadMillis(2).slowDeviceRetryMillis(60_000).readTimeoutMillis(200).overflowRead(false);
            more.accept(c);
        }, (i, device) -> faulty[i] = new FaultyDevice(device), clock);
    }

    /** A started cache and its file, whose chunks are on flash. */
    private record Filled(FlashCache cache, CachedFile file) implements AutoCloseable {
        @Override
        public void close() {
            cache.close();
        }
    }

    /**
     * A cache whose flash holds the file's chunks, cached as misses whose file reads took
     * {@code missMillis}. The cache is started twice: a chunk is on flash, not in its open
     * segment's buffer, once a close has sealed that segment; the second round of puts tells the new
     * breakers what a miss costs.
     */
    private Filled filled(RestartFixture fixture, FaultyDevice[] faulty,
                          Consumer<CacheConfig.Builder> more, long missMillis) throws Exception {
        FileIdentity data = FileIdentity.of(fixture.dataFile("nb-1-big-Data.db"));
        try (FlashCache first = start(fixture, faulty, more)) {
            putAll(first, data, missMillis);
            awaitWritten(first);
        }
        FlashCache cache = start(fixture, faulty, more);
        assertEquals(CHUNKS, cache.entries(), "every chunk came back from flash");
        // The writer reads the recovered segments' summaries in its spare time: done before the device is watched.
        assertTrue(((SegmentFlashCache) cache).engine().awaitRecoveredSampled(20, TimeUnit.SECONDS));
        CachedFile file = putAll(cache, data, missMillis);
        awaitWritten(cache);
        clock.advance(Duration.ofSeconds(1));
        return new Filled(cache, file);
    }

    private static CachedFile putAll(FlashCache cache, FileIdentity data, long missMillis) {
        CachedFile file = cache.registerFile(data);
        for (int i = 0; i < CHUNKS; i++) {
            cache.put(file, (long) i * CHUNK, ChunkContent.buffer(7, (long) i * CHUNK, CHUNK),
                    System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(missMillis));
        }
        return file;
    }

    /** One judged period of hits: enough reads, then the period's end; returns how many hit. */
    private int period(Filled filled) {
        int hits = 0;
        for (int i = 0; i <= DeviceBreaker.MIN_SAMPLES; i++) {
            if (i == DeviceBreaker.MIN_SAMPLES) {
                clock.advance(Duration.ofSeconds(1));
            }
            long position = (long) (i % CHUNKS) * CHUNK;
            CachedChunk chunk = filled.cache().get(filled.file(), position, CHUNK, false);
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
            try (Filled cache = filled(fixture, faulty, c -> { }, 1)) {
                assertEquals(DeviceBreaker.MIN_SAMPLES + 1, period(cache), "a fast device serves every hit");

                AtomicInteger deviceReads = new AtomicInteger();
                faulty[0].delay(FaultyDevice.Op.READ, () -> {
                    deviceReads.incrementAndGet();
                    clock.advance(Duration.ofMillis(50));
                });
                period(cache);
                assertEquals(0, stats(cache).devicesBypassed(), "one slow period may be a pause");
                period(cache);
                assertEquals(1, stats(cache).devicesBypassed(), "50 ms reads against 1 ms misses");
                assertEquals(1, stats(cache).deviceBypasses());

                int readsWhenTripped = deviceReads.get();
                assertEquals(0, period(cache), "hits are misses while the device is out of use");
                assertEquals(readsWhenTripped, deviceReads.get(), "and the device is not read");
                assertTrue(stats(cache).bypassedReads() >= DeviceBreaker.MIN_SAMPLES);

                clock.advance(Duration.ofSeconds(60));
                period(cache);
                assertTrue(deviceReads.get() > readsWhenTripped, "tried again after the retry time");
                assertEquals(2, stats(cache).deviceBypasses(), "still slow: out of use again");

                faulty[0].delay(FaultyDevice.Op.READ, null);
                clock.advance(Duration.ofSeconds(60));
                period(cache);
                assertEquals(0, stats(cache).devicesBypassed(), "fast again: in use");
                assertEquals(DeviceBreaker.MIN_SAMPLES + 1, period(cache));
            }
        }
    }

    @Test
    void aDeviceSlowerThanTheFloorButFasterThanTheMissesStaysInUse() throws Exception {
        try (var fixture = new RestartFixture(1, 32L << 20)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (Filled cache = filled(fixture, faulty, c -> { }, 40)) {
                faulty[0].delay(FaultyDevice.Op.READ, () -> clock.advance(Duration.ofMillis(10)));
                assertEquals(DeviceBreaker.MIN_SAMPLES + 1, period(cache));
                assertEquals(DeviceBreaker.MIN_SAMPLES + 1, period(cache));
                assertEquals(0, stats(cache).deviceBypasses(), "10 ms reads replace 40 ms ones: keep them");
            }
        }
    }

    @Test
    void aDeviceReturningErrorsIsBypassed() throws Exception {
        try (var fixture = new RestartFixture(1, 32L << 20)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (Filled cache = filled(fixture, faulty, c -> { }, 1)) {
                faulty[0].failing(FaultyDevice.Op.READ, true);
                assertEquals(0, period(cache), "a failed read is a miss");
                period(cache);
                assertEquals(1, stats(cache).devicesBypassed());
                int failed = faulty[0].injected();
                period(cache);
                assertEquals(failed, faulty[0].injected(), "no read reaches the failing device while bypassed");

                faulty[0].failing(FaultyDevice.Op.READ, false);
                clock.advance(Duration.ofSeconds(60));
                period(cache);
                assertEquals(0, stats(cache).devicesBypassed());
                assertEquals(DeviceBreaker.MIN_SAMPLES + 1, period(cache), "the entries stayed: hits again");
            }
        }
    }

    @Test
    void aCallerThreadReadThatHangsStopsNewReadsInsteadOfHangingEveryReader() throws Exception {
        try (var fixture = new RestartFixture(1, 32L << 20)) {
            FaultyDevice[] faulty = new FaultyDevice[1];
            try (Filled cache = filled(fixture, faulty, c -> c.readInCallerThread(true), 1)) {
                CompletableFuture<Void> gate = faulty[0].hang(FaultyDevice.Op.READ);
                CountDownLatch entered = new CountDownLatch(1);
                CompletableFuture<CachedChunk> stuck = CompletableFuture.supplyAsync(() -> {
                    entered.countDown();
                    return cache.cache().get(cache.file(), 0, CHUNK, false);
                });
                assertTrue(entered.await(10, TimeUnit.SECONDS));
                await("the first read to reach the hung device", () -> faulty[0].held() == 1);

                clock.advance(Duration.ofMillis(300));
                assertNull(cache.cache().get(cache.file(), CHUNK, CHUNK, false),
                        "a second reader is not held behind the hung device");
                assertEquals(1, faulty[0].held(), "no new read reached it");
                assertEquals(1, stats(cache).devicesBypassed());

                gate.complete(null);
                CachedChunk late = stuck.get(10, TimeUnit.SECONDS);
                assertNotNull(late, "the hung read finishes when the device answers");
                assertArrayEquals(ChunkContent.bytes(7, 0, CHUNK), ChunkContent.read(late));
                late.release();
            }
        }
    }

    private static CacheStats stats(Filled filled) {
        return filled.cache().stats();
    }
}

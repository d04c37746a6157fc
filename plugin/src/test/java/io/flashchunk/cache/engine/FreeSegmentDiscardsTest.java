package io.flashchunk.cache.engine;

import static io.flashchunk.cache.engine.EngineFixture.CHUNK;
import static io.flashchunk.cache.engine.EngineFixture.chunk;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static io.flashchunk.cache.engine.EngineFixture.readAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import io.flashchunk.testing.FaultyDevice;
import io.flashchunk.testing.MemoryDevice;
import io.flashchunk.testing.Scratch;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The engine with {@code discard: true}: each segment discarded (TRIM) as it becomes free and at
 * format, before the writer may write it again, over in-memory devices that zero what they discard,
 * and devices that hold, fail or refuse discards.
 */
class FreeSegmentDiscardsTest {
    private static final int SEGMENT = 256 << 10;

    /**
     * A full cache reclaiming many times over: every segment was discarded at format and each one
     * freed since was discarded again, whole, never while a write of its blocks was in flight; every
     * hit is the chunk's own bytes, and after a restart every chunk the checkpoint named is served
     * (a discard of a segment it names would have zeroed those chunks into misses).
     */
    @Test
    void eachFreedSegmentIsDiscardedWholeBeforeReuseAndNothingACheckpointNamesIsLost() throws Exception {
        MemoryDevice a = device("a", 20); // about 70 segments of 256 KiB
        CacheEngine engine = open(a);
        SegmentTable table = engine.table();
        SegmentLayout layout = engine.start().layouts().get(0).segmentLayout();
        int segments = table.segmentsIn(0);
        int n = 24_000; // many times what flash holds
        offerAll(engine, n);
        long reclaimed = engine.segmentWriter().reclaimed();
        assertTrue(reclaimed >= 40, reclaimed + " reclaimed");

        List<long[]> discards = a.discarded();
        long notYetFree = table.count(0, SegmentState.RECLAIMING) + table.count(0, SegmentState.RETIRED)
                + table.count(0, SegmentState.DISCARDING);
        assertTrue(discards.size() >= segments + reclaimed - notYetFree, discards.size() + " discards for " + segments
                + " segments at format and " + reclaimed + " reclaimed (" + notYetFree + " not yet free)");
        Set<Long> segmentStarts = new HashSet<>();
        for (int i = 0; i < segments; i++) {
            segmentStarts.add(layout.lba(i));
        }
        for (long[] discard : discards) {
            assertTrue(segmentStarts.contains(discard[0]) && discard[1] == SEGMENT / BlockDevice.BLOCK_SIZE,
                    "a discard of blocks " + discard[0] + " (+" + discard[1] + ") is one whole segment");
        }
        assertEquals(0, a.discardsOverWrites(), "no discard while a write of its blocks was in flight");
        assertTrue(engine.discards().discarded() >= segments, engine.discards().discarded() + " counted");
        int hits = readAll(engine, n);
        assertTrue(hits > 500, hits + " hits");
        byte[] killed = a.image(); // what a SIGKILL now would leave: every completed write and discard
        engine.close();
        assertEveryNamedChunkComesBack(new MemoryDevice("a", killed, 8), segments, n);
        assertEveryNamedChunkComesBack(a, segments, n);
    }

    /**
     * Starts the cache on {@code device} with discards: every chunk its checkpoint named is served,
     * before and after the start's discards of the segments no checkpoint names.
     */
    private static void assertEveryNamedChunkComesBack(MemoryDevice device, int segments, int n) throws Exception {
        CacheEngine again = open(device);
        long restored = again.recovered().restoredEntries();
        assertTrue(restored > 500, restored + " restored");
        assertEquals(restored, readAll(again, n), "every chunk the checkpoint named");
        long unnamed = segments - again.table().count(0, SegmentState.DURABLE);
        assertTrue(unnamed > 0 && again.discards().awaitEnded(unnamed, 10, TimeUnit.SECONDS),
                again.discards().ended() + " of the " + unnamed + " unnamed segments discarded at start");
        assertEquals(restored, readAll(again, n), "every chunk the checkpoint named, after the start's discards");
        assertEquals(0, again.damagedRecords());
        assertEquals(0, device.discardsOverWrites());
        again.close();
    }

    /**
     * A discard that does not return holds back its device's segments waiting behind it: the writer
     * writes none of them (it drops chunks meanwhile, as when flash is full), reads go on, and once
     * it returns the cache fills.
     */
    @Test
    void aHungDiscardKeepsItsSegmentsFromTheWriterUntilItReturns() throws Exception {
        FaultyDevice a = new FaultyDevice(device("a", 4));
        CompletableFuture<Void> gate = a.hang(FaultyDevice.Op.DISCARD);
        CacheEngine engine = open(a);
        SegmentTable table = engine.table();
        for (int i = 0; i < 50; i++) {
            engine.offer(key(i), chunk(key(i)));
        }
        assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
        assertEquals(table.segmentsIn(0), table.count(0, SegmentState.DISCARDING), "every segment waits for its discard");
        assertEquals(0, table.count(0, SegmentState.OPEN));
        assertEquals(50, engine.dropped(), "no segment to write them in");
        assertEquals(0, readAll(engine, 50));
        assertTrue(a.held() >= 1);

        gate.complete(null);
        assertTrue(engine.discards().awaitEnded(table.segmentsIn(0), 10, TimeUnit.SECONDS), "the held discards returned");
        offerAll(engine, 50);
        assertEquals(50, readAll(engine, 50), "filled once the discards returned");
        engine.close();
    }

    /**
     * A hung discard on one device holds back only that device: another, without discards, is
     * written and served meanwhile.
     */
    @Test
    void aHungDiscardHoldsBackOnlyItsOwnDevice() throws Exception {
        FaultyDevice a = new FaultyDevice(device("a", 4));
        CompletableFuture<Void> gate = a.hang(FaultyDevice.Op.DISCARD);
        MemoryDevice b = device("b", 4);
        CacheEngine engine = open(List.of(a, b), List.of(true, false));
        SegmentTable table = engine.table();
        assertEquals(0, table.discarding(1), "no discards on b");
        offerAll(engine, 50);
        assertEquals(50, readAll(engine, 50), "every chunk cached on b while a's discard hangs");
        assertEquals(table.segmentsIn(0), table.count(0, SegmentState.DISCARDING));
        assertEquals(0, b.discarded().size());
        gate.complete(null);
        assertTrue(engine.discards().awaitEnded(table.segmentsIn(0), 10, TimeUnit.SECONDS));
        engine.close();
    }

    /** Whatever a discard throws (an Error too), its segment is freed and the next ones are discarded. */
    @Test
    void aDiscardThatThrowsAnErrorStillFreesItsSegmentAndTheThreadGoesOn() throws Exception {
        FaultyDevice a = new FaultyDevice(device("a", 4));
        a.delay(FaultyDevice.Op.DISCARD, () -> {
            throw new StackOverflowError("a discard's Error, thrown by the test");
        });
        CacheEngine engine = open(a);
        awaitFormatDiscards(engine);
        a.delay(FaultyDevice.Op.DISCARD, null);
        assertEquals(engine.table().segmentsIn(0), engine.discards().failed(), "each discard failed, none stuck");
        offerAll(engine, 50);
        assertEquals(50, readAll(engine, 50));
        engine.close();
    }

    /**
     * Stopped (as close does), the discarding thread takes no more segments: the discard in progress
     * returns, and the ones waiting behind it are not made (a restart frees them).
     */
    @Test
    void stoppedDiscardsMakeNoMoreDiscardsOnceTheOneInProgressReturns() throws Exception {
        MemoryDevice memory = device("a", 4);
        FaultyDevice a = new FaultyDevice(memory);
        java.util.concurrent.CountDownLatch arrived = new java.util.concurrent.CountDownLatch(1);
        a.delay(FaultyDevice.Op.DISCARD, arrived::countDown);
        CompletableFuture<Void> gate = a.hang(FaultyDevice.Op.DISCARD);
        CacheEngine engine = open(a);
        int segments = engine.table().segmentsIn(0);
        assertTrue(segments > 2);
        // Stopped once the first discard is at the device (else none may have started yet).
        assertTrue(arrived.await(10, TimeUnit.SECONDS), "a discard reached the device");
        engine.discards().stop();
        gate.complete(null); // the discard held in progress returns
        assertTrue(engine.discards().awaitStopped(10_000), "the discarding thread ended");
        assertEquals(1, memory.discarded().size(), "only the discard in progress was made");
        assertEquals(segments - 1, engine.table().discarding(), "the others stay waiting");
        engine.close();
    }

    /** A failed discard still frees its segment: discards are advice, the writer rewrites what it reads. */
    @Test
    void aFailedDiscardStillFreesItsSegment() throws Exception {
        FaultyDevice a = new FaultyDevice(device("a", 4));
        a.failing(FaultyDevice.Op.DISCARD, true);
        CacheEngine engine = open(a);
        awaitFormatDiscards(engine);
        offerAll(engine, 50);
        assertEquals(50, readAll(engine, 50));
        assertTrue(engine.discards().failed() >= 1, engine.discards().failed() + " failed");
        assertEquals(0, engine.discards().discarded());
        engine.close();
    }

    /**
     * A device that cannot discard (the thread-pool engine here) is left alone from its first refusal,
     * and caches as without the setting.
     */
    @Test
    void aDeviceThatCannotDiscardCachesAsWithoutTheSetting() throws Exception {
        Path file = Scratch.file("no-discard", 4L << 20);
        try (BlockDevice device = BlockDevices.open(DeviceSpec.of(file).withEngine(IoEngine.THREADPOOL))) {
            assertFalse(device.discard(0, 1), "this engine cannot discard");
            CacheEngine engine = open(device);
            // The first refusal frees every segment waiting, and the space discards no more.
            assertTrue(engine.discards().awaitEnded(1, 10, TimeUnit.SECONDS));
            assertEquals(0, engine.table().discarding());
            assertFalse(engine.table().discardsAny());
            offerAll(engine, 50);
            assertEquals(50, readAll(engine, 50));
            assertEquals(0, engine.discards().discarded());
            assertEquals(0, engine.discards().failed());
            engine.close();
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static CacheEngine open(BlockDevice device) throws Exception {
        return open(List.of(device), List.of(true));
    }

    private static CacheEngine open(List<BlockDevice> devices, List<Boolean> discard) throws Exception {
        List<StorageDriver> drivers = devices.stream()
                .map(device -> new StorageDriver(device, 2, TimeUnit.SECONDS.toNanos(5))).toList();
        CacheEngine.Settings settings = new CacheEngine.Settings(SEGMENT, CHUNK, 0.1, 1, 8, 20, 8 << 20, 4, 60_000,
                false, List.of()).withDiscard(discard);
        return CacheEngine.open(drivers, settings, EngineFixture.NO_FILES, () -> 1_000);
    }

    /** Waits until every segment of a formatted cache's device has been through its discard. */
    private static void awaitFormatDiscards(CacheEngine engine) throws InterruptedException {
        int segments = engine.table().segmentsIn(0);
        assertTrue(engine.discards().awaitEnded(segments, 10, TimeUnit.SECONDS),
                engine.discards().ended() + " of " + segments + " segments through their discard");
    }

    /** Offers chunks 0..n-1, each read first (counted for admission), and waits until the writer took them all. */
    private static void offerAll(CacheEngine engine, int n) throws InterruptedException {
        for (int i = 0; i < n; i++) {
            engine.read(key(i), CHUNK, ByteBuffer.allocate(CHUNK));
            engine.offer(key(i), chunk(key(i)));
            if (i % 100 == 0) {
                assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
            }
        }
        assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
    }

    private static MemoryDevice device(String name, int megabytes) {
        return MemoryDevice.blank(name, (long) megabytes * (1 << 20) / BlockDevice.BLOCK_SIZE, 8);
    }
}

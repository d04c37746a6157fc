package io.flashchunk.cache.space;

import static io.flashchunk.cache.engine.EngineFixture.CHUNK;
import static io.flashchunk.cache.engine.EngineFixture.chunk;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.engine.CacheEngine;
import io.flashchunk.cache.engine.EngineFixture;
import io.flashchunk.cache.format.Superblock;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.MemoryDevice;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * A segment's sequence is never one an older record on the same flash carries: not after a crash
 * (the sequences given out since the last checkpoint are recorded nowhere else), not with the clock
 * set back, not after a format over an earlier cache. Each start reserves its range in the devices'
 * superblocks before it opens a segment.
 */
class SegmentSequencesTest {
    private static final int SEGMENT = 256 << 10;

    @Test
    void aRestartAfterACrashNumbersAboveEverySequenceGivenOutWhateverTheClockSays() throws Exception {
        MemoryDevice a = device();
        try (Run first = new Run(() -> 1_000, 256 << 10, a)) {
            fill(first.engine, 0, 600);
        }
        long crashedHighest;
        MemoryDevice crashed;
        try (Run second = new Run(() -> 2_000_000, 256 << 10, a)) {
            fill(second.engine, 600, 1_400);
            crashedHighest = second.engine.table().nextSequence() - 1;
            // A crash: the device as it is now, no final checkpoint (segments were opened since the last).
            crashed = new MemoryDevice("a", a.image(), 8);
        }
        try (Run third = new Run(() -> 1_000, 256 << 10, crashed)) { // the clock set back
            assertTrue(third.engine.table().nextSequence() > crashedHighest, "the run after the crash numbers "
                    + "from " + third.engine.table().nextSequence() + ", the crashed one gave out up to " + crashedHighest);
            assertEquals(0, third.engine.refusedRecords() + third.engine.damagedRecords());
        }
    }

    @Test
    void aFormatOverAnEarlierCacheNumbersAboveItsSequences() throws Exception {
        MemoryDevice a = device();
        long earlierHighest;
        try (Run earlier = new Run(() -> 1_000, 256 << 10, a)) {
            fill(earlier.engine, 0, 600);
            earlierHighest = earlier.engine.table().nextSequence() - 1;
        }
        // Another segment size: the devices are formatted anew, over the earlier cache's records.
        try (Run formatted = new Run(() -> 1_000, 512 << 10, a)) {
            assertTrue(formatted.engine.start().formatted());
            assertTrue(formatted.engine.table().nextSequence() > earlierHighest, "the new cache numbers from "
                    + formatted.engine.table().nextSequence() + ", the earlier one gave out up to " + earlierHighest);
        }
    }

    @Test
    void aRestartReservesItsRangeInEverySuperblockBeforeItOpensASegment() throws Exception {
        MemoryDevice a = device();
        MemoryDevice b = device();
        long limit;
        try (Run first = new Run(() -> 1_000, 256 << 10, a, b)) {
            limit = superblock(a).sequenceLimit();
            assertEquals(limit, superblock(b).sequenceLimit());
            assertTrue(first.engine.table().nextSequence() < limit, "the format reserved the first run's sequences");
        }
        try (Run second = new Run(() -> 1_000, 256 << 10, a, b)) {
            assertTrue(second.engine.table().nextSequence() >= limit);
            assertEquals(second.engine.table().nextSequence() + DeviceStart.SEQUENCES_PER_START,
                    superblock(a).sequenceLimit());
            assertEquals(superblock(a).sequenceLimit(), superblock(b).sequenceLimit());
        }
    }

    private static Superblock superblock(MemoryDevice device) throws Exception {
        return Superblock.decode(ByteBuffer.wrap(device.image(), 0, BlockDevice.BLOCK_SIZE).slice(),
                device.path());
    }

    /** Offers chunks {@code from..to-1} until the writer has taken them all. */
    private static void fill(CacheEngine engine, int from, int to) throws InterruptedException {
        for (int i = from; i < to; i++) {
            engine.offer(key(i), chunk(key(i)));
            if (i % 50 == 0) {
                assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
            }
        }
        assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
    }

    private static MemoryDevice device() {
        return MemoryDevice.blank("a", (16L << 20) / BlockDevice.BLOCK_SIZE, 8);
    }

    /** One run of the engine over the devices (closed at the end, with its last checkpoint). */
    private static final class Run implements AutoCloseable {
        final CacheEngine engine;

        Run(LongSupplier clockMillis, int segmentBytes, BlockDevice... devices) throws Exception {
            List<StorageDriver> drivers = java.util.Arrays.stream(devices)
                    .map(d -> new StorageDriver(d, 2, TimeUnit.SECONDS.toNanos(5))).toList();
            engine = CacheEngine.open(drivers, new CacheEngine.Settings(segmentBytes, CHUNK, 0.1, 1, 8, 20,
                    8 << 20, 4, 60_000, false, List.of()), EngineFixture.NO_FILES, clockMillis);
        }

        @Override
        public void close() throws InterruptedException {
            engine.close();
        }
    }
}

package io.flashchunk.cache.read;

import static io.flashchunk.cache.engine.EngineFixture.CHUNK;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.engine.EngineFixture;
import io.flashchunk.cache.engine.EngineFixture.Order;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.testing.FaultyDevice;
import io.flashchunk.testing.MemoryDevice;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Flash is read only where the segment's current use has written it. The rest of a segment holds
 * what an earlier use, or an earlier cache on the device, left there, and those records can carry
 * the same key and segment sequence (a cache formatted anew numbers its segments from the same
 * start, and opens them in the same order), so no check of a record read there can tell it is stale.
 */
class WrittenPartReadTest {
    /** A chunk whose record ends the first window on a block: 3,840 + 4 * 16,448 = 69,632 = 17 blocks. */
    private static final int SHORT_CHUNK = 3808;
    /** Records of the history: the short one first, then whole chunks (window 1: 0-4, window 2: 5-8, window 3: 9-). */
    private static final int RECORDS = 10;

    @Test
    void aHitNeverReadsTheNextRecordAlongFromAWindowNotYetWritten() throws Exception {
        MemoryDevice flash = EngineFixture.device("a", 4);
        // An earlier cache on the device wrote the same keys in the same order, with other bytes.
        EngineFixture earlier = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, flash);
        for (int i = 0; i < RECORDS; i++) {
            assertTrue(earlier.segmentWriter.append(key(i), chunk(i, 1)));
        }
        earlier.segmentWriter.flush();

        FaultyDevice device = new FaultyDevice(flash);
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, device);
        for (int i = 0; i < RECORDS - 1; i++) {
            assertTrue(engine.segmentWriter.append(key(i), chunk(i, 2)));
        }
        // The record that fills window 2: window 1's write ends (its buffer is reused for window 3),
        // window 2's write starts and is held in the device.
        CompletableFuture<Void> held = device.hang(FaultyDevice.Op.WRITE);
        assertTrue(engine.segmentWriter.append(key(RECORDS - 1), chunk(RECORDS - 1, 2)));
        assertEquals(1, device.held(), "window 2's write is in flight");
        long last = engine.index.find(key(4));
        long next = engine.index.find(key(5));
        assertEquals(69_632, RecordAddress.sector(next) * RecordAddress.MIN_SECTOR_BYTES - EngineFixture.FIRST_BYTE,
                "window 2 starts on a block, right after window 1's last record");

        SegmentReader.Hit hit = engine.reader.read(key(4), CHUNK, key(5));
        try {
            assertNotNull(hit, "window 1's last record is on flash");
            assertEquals(chunk(4, 2), hit.chunk());
            SegmentReader.Follower follower = hit.next();
            if (follower != null) {
                assertEquals(chunk(5, 2), follower.chunk(), "the next chunk read along from flash its window's "
                        + "write has not reached: the earlier cache's bytes");
            }
        } finally {
            if (hit != null) {
                hit.release();
            }
        }
        held.complete(null);
        engine.segmentWriter.flush();
        assertEquals(last, engine.index.find(key(4)));
        assertEquals(chunk(5, 2), engine.read(key(5)), "once written, window 2 serves as before");
    }

    /** Chunk {@code i}'s bytes as instance {@code version} of the cache cached them. */
    private static ByteBuffer chunk(int i, int version) {
        byte[] bytes = new byte[i == 0 ? SHORT_CHUNK : CHUNK];
        new Random(key(i) * 31 + version).nextBytes(bytes);
        return ByteBuffer.wrap(bytes);
    }
}

package io.flashchunk.cache.read;

import static io.flashchunk.cache.engine.EngineFixture.CHUNK;
import static io.flashchunk.cache.engine.EngineFixture.PER_SEGMENT;
import static io.flashchunk.cache.engine.EngineFixture.chunk;
import static io.flashchunk.cache.engine.EngineFixture.device;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.engine.EngineFixture;
import io.flashchunk.cache.engine.EngineFixture.Order;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import io.flashchunk.testing.FaultyDevice;
import io.flashchunk.testing.LoopDevice;
import io.flashchunk.testing.ReadThrottle;
import io.flashchunk.testing.Waits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A device that stops answering keeps the buffers of the reads it was given; hits past a bound of
 * reads in flight on it are misses that take no buffer, so the direct memory it holds is bounded
 * however long it hangs and however many hits try it (the slow-device breaker lets another wave of
 * reads through at each retry).
 */
class ReadsInFlightTest {
    @Test
    void hitsOnAHungDeviceHoldAtMostTheBoundsBuffersAndTheRestAreMisses() throws Exception {
        FaultyDevice device = new FaultyDevice(device("a", 4));
        EngineFixture engine = new EngineFixture(TimeUnit.MILLISECONDS.toNanos(20), Order.ENGINE, device);
        for (int i = 0; i < PER_SEGMENT; i++) {
            assertTrue(engine.segmentWriter.append(key(i), chunk(key(i))));
        }
        engine.segmentWriter.flush();
        int bound = SegmentReader.MAX_IN_FLIGHT_PER_QUEUE_SLOT * device.queueDepth();

        CompletableFuture<Void> hung = device.hang(FaultyDevice.Op.READ);
        int timedOut = 0;
        for (int i = 0; i < 5 * bound; i++) {
            try {
                assertNull(engine.reader.read(key(i % PER_SEGMENT), CHUNK, SegmentReader.NO_NEXT),
                        "no hit from a hung device");
            } catch (IOException e) {
                timedOut++; // the read was given up after the timeout; the device keeps its buffer
            }
        }
        assertEquals(bound, timedOut, "reads given up: as many as the bound, then misses without a read");
        assertEquals(bound, engine.reader.readsInFlight(0));
        assertEquals(4 * bound, engine.reader.busyMisses());
        assertEquals(bound, engine.reader.outstandingBuffers(), "buffers the hung device holds");

        hung.complete(null);
        // The held reads end (their buffers return to the pool), and hits are served again.
        Waits.until("the device to answer every held read and let go of its buffer", Duration.ofSeconds(10),
                Duration.ofMillis(1), () -> engine.reader.readsInFlight(0) == 0 && engine.reader.outstandingBuffers() == 0);
        ByteBuffer into = ByteBuffer.allocate(CHUNK);
        assertEquals(CHUNK, engine.reader.read(key(0), CHUNK, into));
        assertEquals(chunk(key(0)), into.flip());
        assertThrows(IllegalArgumentException.class, () -> engine.reader.read(key(0), 0, SegmentReader.NO_NEXT));
    }

    /**
     * engine io_uring on a real loop device slowed for this thread by blk-throttle: a hit whose read
     * passes the timeout is a miss, its buffer stays the device's until the read ends, and the bytes
     * served afterwards are right.
     */
    @Test
    void aHitReadThroughARingPastItsDeadlineHoldsItsBufferUntilTheReadEnds() throws Exception {
        try (LoopDevice loop = LoopDevice.attach(EngineFixture.FIRST_BYTE + 4L * EngineFixture.SEGMENT_BYTES)) {
            BlockDevice device = BlockDevices.open(DeviceSpec.of(loop.path()).withEngine(IoEngine.IO_URING).withQueueDepth(8));
            try {
                EngineFixture engine = new EngineFixture(TimeUnit.MILLISECONDS.toNanos(50), Order.ENGINE, device);
                for (int i = 0; i < PER_SEGMENT; i++) {
                    assertTrue(engine.segmentWriter.append(key(i), chunk(key(i))));
                }
                engine.segmentWriter.flush();
                int timedOut = 0;
                try (ReadThrottle slow = ReadThrottle.onThisThread(loop.path(), 1)) {
                    // One read a second for this thread: after the first, a hit waits past its 50 ms.
                    for (int i = 0; i < 4 && timedOut == 0; i++) {
                        try {
                            SegmentReader.Hit hit = engine.reader.read(key(i), CHUNK, SegmentReader.NO_NEXT);
                            if (hit != null) {
                                assertEquals(chunk(key(i)), hit.chunk(), "a hit in time is right");
                                hit.release();
                            }
                        } catch (IOException e) {
                            timedOut++;
                            assertTrue(e.getMessage().contains("did not finish in 50 ms"), e.getMessage());
                        }
                    }
                    assertEquals(1, timedOut, "a read held by the throttle passed its deadline");
                    assertEquals(1, engine.reader.outstandingBuffers(), "the late read's buffer is the device's");
                    assertEquals(1, engine.reader.readsInFlight(0));
                }
                Waits.until("the late read to end and give its buffer back", Duration.ofSeconds(30), Duration.ofMillis(5),
                        () -> engine.reader.outstandingBuffers() == 0 && engine.reader.readsInFlight(0) == 0);
                for (int i = 0; i < PER_SEGMENT; i++) {
                    ByteBuffer into = ByteBuffer.allocate(CHUNK);
                    assertEquals(CHUNK, engine.reader.read(key(i), CHUNK, into), "hit " + i);
                    assertEquals(chunk(key(i)), into.flip());
                }
            } finally {
                device.close();
            }
        }
    }
}

package io.flashchunk.cache.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.FaultyDevice;
import io.flashchunk.testing.MemoryDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import io.flashchunk.device.DeviceTimeoutException;
import org.junit.jupiter.api.Test;

/** The body streamed into an area with a piece's write under way while the next fills. */
class BodyWriterTest {
    private static final int PIECE = BodyWriter.PIECE_BYTES;
    private static final long AREA_BLOCK = 8;

    private final MemoryDevice memory = MemoryDevice.blank("a", (4L * PIECE) / BlockDevice.BLOCK_SIZE, 8);
    private final FaultyDevice device = new FaultyDevice(memory);
    private final StorageDriver driver = new StorageDriver(device, 4, TimeUnit.SECONDS.toNanos(10));
    private final AtomicLong clockMillis = new AtomicLong(1_000);

    /**
     * The writer thread copies the index between its appends and must never wait on the device: what
     * {@link BodyWriter#roomWithoutWaiting} promises is appended while a piece's write is held, and
     * the body reads back whole once it is let go.
     */
    @Test
    void appendsWhatItsRoomPromisesWhileAPieceIsBeingWrittenAndTheBodyReadsBackWhole() throws Exception {
        BodyWriter writer = new BodyWriter(driver, AREA_BLOCK, 3L * PIECE, "test area", clockMillis::get);
        byte[] body = new byte[2 * PIECE + 1000];
        new SplittableRandom(7).nextBytes(body);
        CompletableFuture<Void> held = device.hang(FaultyDevice.Op.WRITE);
        writer.append(body, 0, PIECE); // the first piece full: its write starts, and is held
        long room = writer.roomWithoutWaiting();
        assertEquals(PIECE - 1, room, "the next piece, short of filling it while the first is written");
        CompletableFuture<Void> appended = CompletableFuture.runAsync(() -> {
            try {
                writer.append(body, PIECE, (int) room);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        appended.get(10, TimeUnit.SECONDS); // returns with the first piece's write still held
        assertTrue(!held.isDone());
        assertEquals(0, writer.roomWithoutWaiting(), "no room left while the first piece's write is held");
        held.complete(null);
        writer.append(body, PIECE + (int) room, body.length - PIECE - (int) room);
        writer.finish(header());
        byte[] image = memory.image();
        int from = (int) ((AREA_BLOCK + 1) * BlockDevice.BLOCK_SIZE);
        assertArrayEquals(body, Arrays.copyOfRange(image, from, from + body.length));
        assertEquals(7, image[(int) (AREA_BLOCK * BlockDevice.BLOCK_SIZE)], "the header written last");
        assertEquals(body.length, writer.bytes());
    }

    /** A piece's write that failed is thrown by the next call, and by every call after it. */
    @Test
    void aFailedPieceWriteIsThrownByEveryLaterCall() throws Exception {
        BodyWriter writer = new BodyWriter(driver, AREA_BLOCK, 3L * PIECE, "test area", clockMillis::get);
        device.failing(FaultyDevice.Op.WRITE, true);
        writer.append(new byte[PIECE], 0, PIECE); // its write starts, and fails
        device.failing(FaultyDevice.Op.WRITE, false);
        assertThrows(IOException.class, () -> writer.append(new byte[PIECE], 0, PIECE));
        assertThrows(IOException.class, writer::roomWithoutWaiting);
        assertThrows(IOException.class, writer::finishBody);
        assertThrows(IOException.class, () -> writer.writeHeader(header()));
        assertEquals(0, memory.image()[(int) (AREA_BLOCK * BlockDevice.BLOCK_SIZE)], "no header over a failed body");
    }

    /**
     * A piece's write that the device holds past its timeout fails the body where the writer looks
     * without waiting (a step would otherwise wait for room forever, and no failure be counted).
     */
    @Test
    void aPieceWriteHeldPastTheDeviceTimeoutFailsTheBodyWithoutAWaitAndIsWaitedForWhenGivenUp() throws Exception {
        BodyWriter writer = new BodyWriter(driver, AREA_BLOCK, 3L * PIECE, "test area", clockMillis::get);
        CompletableFuture<Void> held = device.hang(FaultyDevice.Op.WRITE);
        writer.append(new byte[PIECE], 0, PIECE);
        clockMillis.addAndGet(10_000);
        assertEquals(PIECE - 1, writer.roomWithoutWaiting(), "within the device timeout: no failure");
        clockMillis.addAndGet(1);
        DeviceTimeoutException e = assertThrows(DeviceTimeoutException.class, writer::roomWithoutWaiting);
        assertTrue(e.getMessage().contains("block " + (AREA_BLOCK + 1)), e.getMessage());
        CompletableFuture<Void> givenUp = CompletableFuture.runAsync(writer::abandon);
        held.complete(null);
        givenUp.get(10, TimeUnit.SECONDS);
        assertThrows(DeviceTimeoutException.class, writer::finishBody, "the body stays failed");
    }

    private static ByteBuffer header() {
        ByteBuffer header = ByteBuffer.allocateDirect(BlockDevice.BLOCK_SIZE);
        header.put(0, (byte) 7);
        return header;
    }
}

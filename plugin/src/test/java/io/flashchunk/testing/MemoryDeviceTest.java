package io.flashchunk.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class MemoryDeviceTest {
    private static final int BLOCK = BlockDevice.BLOCK_SIZE;

    /** The check the engine's tests lean on for write ordering: it must see an overlap when there is one. */
    @Test
    void countsAWriteAcceptedWhileAnOverlappingOneIsStillInFlight() throws Exception {
        CountDownLatch hold = new CountDownLatch(1);
        MemoryDevice device = new MemoryDevice("memory", new byte[8 * BLOCK], 4, (lba, bytes) -> {
            if (lba == 7) {
                try {
                    hold.await(); // holds the completion thread: the writes behind it stay in flight
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        CompletableFuture<Void> holder = device.write(7, ByteBuffer.allocate(BLOCK));
        CompletableFuture<Void> first = device.write(0, ByteBuffer.allocate(2 * BLOCK));
        CompletableFuture<Void> overlapping = device.write(1, ByteBuffer.allocate(2 * BLOCK));
        CompletableFuture<Void> apart = device.write(4, ByteBuffer.allocate(BLOCK));
        hold.countDown();
        CompletableFuture.allOf(holder, first, overlapping, apart).join();
        assertEquals(1, device.overlappingWrites(), "blocks 1-2 while blocks 0-1 were in flight; block 4 overlaps none");
        device.write(0, ByteBuffer.allocate(2 * BLOCK)).join();
        assertEquals(1, device.overlappingWrites(), "after the others ended, the same blocks again are no overlap");
        device.close();
    }
}

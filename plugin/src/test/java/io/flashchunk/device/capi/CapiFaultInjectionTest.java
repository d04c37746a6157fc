package io.flashchunk.device.capi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceIoException;
import io.flashchunk.device.DeviceStats;
import io.flashchunk.device.Errno;
import io.flashchunk.device.LibC;
import io.flashchunk.testing.Backend;
import io.flashchunk.testing.Buffers;
import io.flashchunk.testing.Scratch;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Errors injected by our capiblock library (it reads FLASHCHUNK_CBLK_* when a chunk is opened)
 * surface as failed futures, and the device goes on working.
 */
class CapiFaultInjectionTest {
    private static final int BLOCK = BlockDevice.BLOCK_SIZE;
    private static final String[] FAULT_VARIABLES = {"FLASHCHUNK_CBLK_FAIL_READ", "FLASHCHUNK_CBLK_FAIL_WRITE",
        "FLASHCHUNK_CBLK_LATENCY_US"};

    private Path file;

    @BeforeEach
    void createFile() throws Exception {
        file = Scratch.file("capi-faults", 32L * BLOCK);
    }

    @AfterEach
    void clean() throws Exception {
        for (String variable : FAULT_VARIABLES) {
            LibC.unsetenv(variable);
        }
        Files.deleteIfExists(file);
    }

    private BlockDevice openWith(String variable, String value) throws Exception {
        LibC.setenv(variable, value, 1);
        try {
            return BlockDevices.open(Backend.CAPI.spec(file).withQueueDepth(4));
        } finally {
            LibC.unsetenv(variable);
        }
    }

    @Test
    void injectedReadErrorFailsOnlyThatReadAndTheDeviceStaysUsable() throws Exception {
        byte[][] blocks = randomBlocks(8, 5);
        try (BlockDevice device = openWith("FLASHCHUNK_CBLK_FAIL_READ", "3")) {
            writeAll(device, blocks);
            for (int lba = 0; lba < blocks.length; lba++) {
                ByteBuffer buffer = AlignedBuffers.allocate(BLOCK);
                CompletableFuture<Void> read = device.read(lba, buffer);
                if (lba == 2) {
                    CompletionException e = assertThrows(CompletionException.class, read::join);
                    DeviceIoException io = (DeviceIoException) e.getCause();
                    assertEquals(Errno.EIO, io.errno());
                    assertTrue(io.getMessage().contains("LBA 2") && io.getMessage().contains(file.toString()),
                            io.getMessage());
                } else {
                    read.join();
                    assertArrayEquals(blocks[lba], Buffers.bytes(buffer), "LBA " + lba);
                }
            }
            ByteBuffer again = AlignedBuffers.allocate(BLOCK);
            device.read(2, again).join();
            assertArrayEquals(blocks[2], Buffers.bytes(again), "the failed block reads fine the second time");
            DeviceStats stats = device.stats();
            assertEquals(1, stats.readErrors());
            assertEquals(blocks.length, stats.readOps());
        }
    }

    @Test
    void injectedWriteErrorWritesNothingAndARetrySucceeds() throws Exception {
        byte[][] blocks = randomBlocks(4, 9);
        try (BlockDevice device = openWith("FLASHCHUNK_CBLK_FAIL_WRITE", "2")) {
            device.write(0, aligned(blocks[0])).join();
            CompletionException e = assertThrows(CompletionException.class, () -> device.write(1, aligned(blocks[1])).join());
            assertEquals(Errno.EIO, ((DeviceIoException) e.getCause()).errno());
            ByteBuffer unwritten = AlignedBuffers.allocate(BLOCK);
            device.read(1, unwritten).join();
            assertArrayEquals(new byte[BLOCK], Buffers.bytes(unwritten), "a failed write leaves the block as it was");
            device.write(1, aligned(blocks[1])).join();
            ByteBuffer written = AlignedBuffers.allocate(BLOCK);
            device.read(1, written).join();
            assertArrayEquals(blocks[1], Buffers.bytes(written));
            assertEquals(1, device.stats().writeErrors());
        }
    }

    @Test
    void slowDeviceQueuesRequestsBehindTheQueueDepthWithoutBlockingCallers() throws Exception {
        byte[][] blocks = randomBlocks(24, 13);
        try (BlockDevice device = openWith("FLASHCHUNK_CBLK_LATENCY_US", "2000")) {
            long start = System.nanoTime();
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (int lba = 0; lba < blocks.length; lba++) {
                writes.add(device.write(lba, aligned(blocks[lba])));
            }
            long submitNanos = System.nanoTime() - start;
            DeviceStats during = device.stats();
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
            // 24 writes of 2 ms through 4 slots take at least 12 ms; submitting them must not have waited for that.
            assertTrue(during.waiting() > 0 || submitNanos < 12_000_000L, "callers were held up: waiting="
                    + during.waiting() + ", submit took " + submitNanos + " ns");
            assertTrue(device.stats().maxInFlight() <= 4);
            assertTrue(((CapiBlockDevice) device).chunkStats().maxAsyncWritesInFlight() <= 4);
            assertEquals(4, ((CapiBlockDevice) device).chunkStats().maxAsyncWritesInFlight());
            for (int lba = 0; lba < blocks.length; lba++) {
                ByteBuffer buffer = AlignedBuffers.allocate(BLOCK);
                device.read(lba, buffer).join();
                assertArrayEquals(blocks[lba], Buffers.bytes(buffer));
            }
        }
    }

    private static void writeAll(BlockDevice device, byte[][] blocks) {
        for (int lba = 0; lba < blocks.length; lba++) {
            device.write(lba, aligned(blocks[lba])).join();
        }
    }

    private static byte[][] randomBlocks(int count, long seed) {
        Random random = new Random(seed);
        byte[][] blocks = new byte[count][BLOCK];
        for (byte[] block : blocks) {
            random.nextBytes(block);
        }
        return blocks;
    }

    private static ByteBuffer aligned(byte[] data) {
        ByteBuffer buffer = AlignedBuffers.allocate(data.length);
        buffer.put(data).flip();
        return buffer;
    }
}

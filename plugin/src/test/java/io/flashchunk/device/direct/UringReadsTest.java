package io.flashchunk.device.direct;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.DeviceOpenException;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import io.flashchunk.testing.Buffers;
import io.flashchunk.testing.LoopDevice;
import io.flashchunk.testing.ReadThrottle;
import io.flashchunk.testing.Scratch;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Reads in the reader's own thread through io_uring rings (libaio devices): the right bytes with no
 * completion thread, and a read past its deadline handed over whole, its buffer the device's until
 * it ends, on a real loop device slowed for the reading thread by blk-throttle.
 */
class UringReadsTest {
    private static final int BLOCKS = 256;

    @Test
    void readsInTheCallersThreadsReturnTheDevicesBytes() throws Exception {
        Path file = Scratch.file("uring", (long) BLOCKS * BlockDevice.BLOCK_SIZE);
        try (DirectIoDevice device = DirectIoDevice.open(DeviceSpec.of(file).withEngine(IoEngine.IO_URING).withQueueDepth(8))) {
            writePattern(device);
            List<Thread> readers = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int t = 0; t < 4; t++) {
                SplittableRandom random = new SplittableRandom(t);
                Thread reader = new Thread(() -> {
                    ByteBuffer buffer = AlignedBuffers.allocate(2 * BlockDevice.BLOCK_SIZE);
                    try {
                        for (int i = 0; i < 300; i++) {
                            int lba = random.nextInt(BLOCKS - 1);
                            CompletableFuture<Void> read = device.readWithin(lba, buffer, TimeUnit.SECONDS.toNanos(10));
                            assertTrue(read.isDone(), "a read that ended in time is done when readWithin returns");
                            read.join();
                            assertArrayEquals(expected(lba, 2), Buffers.bytes(buffer), "blocks at LBA " + lba);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                readers.add(reader);
                reader.start();
            }
            for (Thread reader : readers) {
                reader.join();
            }
            assertNull(failure.get(), () -> "a reader failed: " + failure.get());
            UringReads rings = device.uringReads();
            assertNull(rings.refusal(), "the kernel gave rings");
            int made = rings.ringsMade();
            assertTrue(made >= 1 && made <= 4, "a ring per concurrent reader at most, reused: " + made);
            assertEquals(1_200, device.stats().readOps(), "every read counted by the device");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void aReadPastItsDeadlineEndsLaterWithItsBytesAndTheDeviceClosesAfterIt() throws Exception {
        try (LoopDevice loop = LoopDevice.attach((long) BLOCKS * BlockDevice.BLOCK_SIZE)) {
            DirectIoDevice device = DirectIoDevice.open(DeviceSpec.of(loop.path()).withEngine(IoEngine.IO_URING).withQueueDepth(8));
            try {
                writePattern(device);
                ByteBuffer buffer = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE);
                CompletableFuture<Void> late;
                try (ReadThrottle slow = ReadThrottle.onThisThread(loop.path(), 1)) {
                    late = lateRead(device, 7, buffer);
                    // The throttle holds it about a second more: it waits with its ring, not in a queue.
                    assertEquals(1, device.uringReads().pending(), "the late read is its ring's");
                }
                // Closed while the read is in flight: the device waits for it, then lets go of its rings.
                device.close();
                assertTrue(late.isDone(), "the late read ended before the device closed");
                late.join();
                assertArrayEquals(expected(7, 1), Buffers.bytes(buffer), "the late read's bytes");
                assertEquals(0, device.uringReads().pending(), "no read left in flight");
            } finally {
                device.close();
            }
        }
    }

    @Test
    void aLateReadsRingIsReusedOnceItsReadEnded() throws Exception {
        try (LoopDevice loop = LoopDevice.attach((long) BLOCKS * BlockDevice.BLOCK_SIZE);
             DirectIoDevice device = DirectIoDevice.open(DeviceSpec.of(loop.path()).withEngine(IoEngine.IO_URING).withQueueDepth(8))) {
            writePattern(device);
            ByteBuffer buffer = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE);
            CompletableFuture<Void> late;
            try (ReadThrottle slow = ReadThrottle.onThisThread(loop.path(), 1)) {
                late = lateRead(device, 9, buffer);
            }
            late.get(30, TimeUnit.SECONDS);
            assertArrayEquals(expected(9, 1), Buffers.bytes(buffer));
            int made = device.uringReads().ringsMade();
            assertTrue(made >= 1, "the reads went through rings");
            for (int i = 0; i < 20; i++) {
                device.readWithin(i, buffer, TimeUnit.SECONDS.toNanos(10)).join();
                assertArrayEquals(expected(i, 1), Buffers.bytes(buffer), "LBA " + i);
            }
            assertEquals(made, device.uringReads().ringsMade(), "the late read's ring went back to the pool");
            assertFalse(device.stats().readOps() < 20, "reads counted: " + device.stats());
        }
    }

    /** A kernel that gives no ring (here: kernel.io_uring_disabled=2) refuses the engine, naming why; libaio opens. */
    @Test
    void aKernelThatGivesNoRingsRefusesTheEngineWithTheReason() throws Exception {
        Path sysctl = Path.of("/proc/sys/kernel/io_uring_disabled");
        Path file = Scratch.file("uring-off", (long) BLOCKS * BlockDevice.BLOCK_SIZE);
        String before = Files.readString(sysctl).trim();
        try {
            Files.writeString(sysctl, "2");
            DeviceOpenException refused = assertThrows(DeviceOpenException.class,
                    () -> DirectIoDevice.open(DeviceSpec.of(file).withEngine(IoEngine.IO_URING)));
            assertTrue(refused.getMessage().contains("engine io_uring") && refused.getMessage().contains(file.toString())
                    && refused.getMessage().contains("kernel gives no io_uring ring")
                    && refused.getMessage().contains("EPERM (Operation not permitted) (kernel.io_uring_disabled")
                    && refused.getMessage().contains("set the engine to libaio"), refused.getMessage());
            try (DirectIoDevice libaio = DirectIoDevice.open(DeviceSpec.of(file).withEngine(IoEngine.LIBAIO))) {
                assertEquals(IoEngine.LIBAIO, libaio.engine());
            }
        } finally {
            Files.writeString(sysctl, before);
            Files.deleteIfExists(file);
        }
        Path again = Scratch.file("uring-on", 4L * BlockDevice.BLOCK_SIZE);
        try (DirectIoDevice uring = DirectIoDevice.open(DeviceSpec.of(again).withEngine(IoEngine.IO_URING))) {
            assertEquals(IoEngine.IO_URING, uring.engine(), "rings again once the kernel gives them");
        } finally {
            Files.deleteIfExists(again);
        }
    }

    /**
     * A read of {@code lba} past its 50 ms deadline, from a thread the throttle holds to one read a
     * second (the first read may pass at once, then one waits): fails the test if none is late.
     */
    private static CompletableFuture<Void> lateRead(BlockDevice device, long lba, ByteBuffer buffer) {
        for (int i = 0; i < 5; i++) {
            CompletableFuture<Void> read = device.readWithin(lba, buffer, TimeUnit.MILLISECONDS.toNanos(50));
            if (!read.isDone()) {
                return read;
            }
        }
        throw new AssertionError("no read held by the throttle passed its 50 ms deadline");
    }

    private static void writePattern(BlockDevice device) {
        ByteBuffer block = AlignedBuffers.allocate(BLOCKS * BlockDevice.BLOCK_SIZE);
        block.put(expected(0, BLOCKS)).flip();
        device.write(0, block).join();
    }

    private static byte[] expected(int lba, int blocks) {
        byte[] bytes = new byte[blocks * BlockDevice.BLOCK_SIZE];
        for (int i = 0; i < bytes.length; i++) {
            long at = (long) lba * BlockDevice.BLOCK_SIZE + i;
            bytes[i] = (byte) (at * 31 + at / BlockDevice.BLOCK_SIZE);
        }
        return bytes;
    }
}

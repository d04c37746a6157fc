package io.flashchunk.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.device.capi.CapiBlockDevice;
import io.flashchunk.testing.Backend;
import io.flashchunk.testing.Buffers;
import io.flashchunk.testing.LoopDevice;
import io.flashchunk.testing.Scratch;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What every backend must do: put the right bytes at the right LBAs, under concurrency, within its queue depth. */
class BlockDeviceContractTest {
    private static final int BLOCK = BlockDevice.BLOCK_SIZE;
    private static final long DEVICE_BYTES = 16L << 20;

    private record Extent(long lba, byte[] data) {
        int blocks() {
            return data.length / BLOCK;
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void randomDataWrittenAtRandomLbasOfAFileReadsBack(Backend backend) throws Exception {
        Path file = Scratch.file("contract-" + backend, DEVICE_BYTES);
        try {
            writeReadBackAndReopen(backend, file, 11);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void randomDataWrittenAtRandomLbasOfALoopDeviceReadsBack(Backend backend) throws Exception {
        try (LoopDevice loop = LoopDevice.attach(DEVICE_BYTES)) {
            writeReadBackAndReopen(backend, loop.path(), 23);
        }
    }

    private static void writeReadBackAndReopen(Backend backend, Path path, long seed) throws Exception {
        Random random = new Random(seed);
        List<Extent> extents = new ArrayList<>();
        try (BlockDevice device = backend.open(path, 8)) {
            assertEquals(DEVICE_BYTES / BLOCK, device.capacityBlocks());
            assertEquals(backend.engine(), device.engine());
            extents = randomExtents(random, device.capacityBlocks());
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (Extent extent : extents) {
                writes.add(device.write(extent.lba(), copyToAligned(extent.data())));
            }
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
            assertAllReadBack(device, extents);

            DeviceStats stats = device.stats();
            assertEquals(extents.size(), stats.writeOps());
            assertEquals(extents.size(), stats.readOps());
            long bytes = extents.stream().mapToLong(e -> e.data().length).sum();
            assertEquals(bytes, stats.writeBytes());
            assertEquals(bytes, stats.readBytes());
            assertEquals(0, stats.readErrors() + stats.writeErrors());
            assertEquals(extents.size(), stats.readLatencyNanos().getTotalCount());
        }
        // A second look, through a new device and through plain buffered file reads: the bytes are on the medium.
        try (BlockDevice device = backend.open(path, 8)) {
            assertAllReadBack(device, extents);
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            for (Extent extent : extents) {
                ByteBuffer read = ByteBuffer.allocate(extent.data().length);
                channel.read(read, extent.lba() * BLOCK);
                assertArrayEquals(extent.data(), read.array(), "file bytes at LBA " + extent.lba());
            }
        }
    }

    /** Non-overlapping extents of 1 to 16 blocks with gaps between them. */
    private static List<Extent> randomExtents(Random random, long capacityBlocks) {
        List<Extent> extents = new ArrayList<>();
        long lba = random.nextInt(8);
        while (true) {
            int blocks = 1 + random.nextInt(16);
            if (lba + blocks > capacityBlocks) {
                return extents;
            }
            byte[] data = new byte[blocks * BLOCK];
            random.nextBytes(data);
            extents.add(new Extent(lba, data));
            lba += blocks + random.nextInt(48);
        }
    }

    /** readNow reads the same bytes as read, in the caller's thread where the engine can, and counts them. */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void readNowReadsWhatWasWrittenAndRefusesBadArgumentsAndAClosedDevice(Backend backend) throws Exception {
        Path path = Scratch.file("read-now-" + backend, 64L * BLOCK);
        BlockDevice device = backend.open(path, 8);
        try {
            List<Extent> extents = writeExtents(device, randomExtents(new Random(11), 64));
            long readsBefore = device.stats().readOps();
            for (Extent extent : extents) {
                ByteBuffer buffer = AlignedBuffers.allocate(extent.data().length);
                device.readNow(extent.lba(), buffer);
                assertEquals(0, buffer.position(), "readNow must leave the position alone");
                assertArrayEquals(extent.data(), Buffers.bytes(buffer), "bytes at LBA " + extent.lba());
            }
            assertEquals(readsBefore + extents.size(), device.stats().readOps(), "every readNow is counted once");
            ByteBuffer pastTheEnd = AlignedBuffers.allocate(2 * BLOCK);
            IllegalArgumentException outside = assertThrows(IllegalArgumentException.class,
                    () -> device.readNow(63, pastTheEnd));
            assertTrue(outside.getMessage().contains("outside the device"), outside.getMessage());
            assertThrows(IllegalArgumentException.class, () -> device.readNow(0, ByteBuffer.allocate(BLOCK)),
                    "a heap buffer");
        } finally {
            device.close();
        }
        assertThrows(DeviceClosedException.class, () -> device.readNow(0, AlignedBuffers.allocate(BLOCK)));
    }

    /** readWithin reads the same bytes, done on return when in time, and refuses what read refuses. */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void readWithinReadsWhatWasWrittenAndRefusesBadArgumentsAndAClosedDevice(Backend backend) throws Exception {
        Path path = Scratch.file("read-within-" + backend, 64L * BLOCK);
        BlockDevice device = backend.open(path, 8);
        long timeout = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        try {
            List<Extent> extents = writeExtents(device, randomExtents(new Random(13), 64));
            long readsBefore = device.stats().readOps();
            for (Extent extent : extents) {
                ByteBuffer buffer = AlignedBuffers.allocate(extent.data().length);
                CompletableFuture<Void> read = device.readWithin(extent.lba(), buffer, timeout);
                assertTrue(read.isDone(), "a read that ended in time is done on return");
                read.join();
                assertEquals(0, buffer.position(), "readWithin must leave the position alone");
                assertArrayEquals(extent.data(), Buffers.bytes(buffer), "bytes at LBA " + extent.lba());
            }
            assertEquals(readsBefore + extents.size(), device.stats().readOps(), "every read is counted once");
            IllegalArgumentException outside = assertThrows(IllegalArgumentException.class,
                    () -> device.readWithin(63, AlignedBuffers.allocate(2 * BLOCK), timeout));
            assertTrue(outside.getMessage().contains("outside the device"), outside.getMessage());
            assertThrows(IllegalArgumentException.class, () -> device.readWithin(0, ByteBuffer.allocate(BLOCK), timeout),
                    "a heap buffer");
        } finally {
            device.close();
        }
        CompletableFuture<Void> closed = device.readWithin(0, AlignedBuffers.allocate(BLOCK), timeout);
        java.util.concurrent.CompletionException e = assertThrows(java.util.concurrent.CompletionException.class, closed::join);
        assertTrue(e.getCause() instanceof DeviceClosedException, "a closed device: " + e.getCause());
    }

    /** Writes each extent's bytes at its LBA, one after another; returns the extents. */
    private static List<Extent> writeExtents(BlockDevice device, List<Extent> extents) {
        for (Extent extent : extents) {
            ByteBuffer data = AlignedBuffers.allocate(extent.data().length);
            data.put(extent.data()).flip();
            device.write(extent.lba(), data).join();
        }
        return extents;
    }

    private static void assertAllReadBack(BlockDevice device, List<Extent> extents) {
        List<ByteBuffer> buffers = new ArrayList<>();
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        for (Extent extent : extents) {
            ByteBuffer buffer = AlignedBuffers.allocate(extent.data().length);
            buffers.add(buffer);
            reads.add(device.read(extent.lba(), buffer));
        }
        CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).join();
        for (int i = 0; i < extents.size(); i++) {
            ByteBuffer buffer = buffers.get(i);
            assertEquals(0, buffer.position(), "read must leave the position alone");
            assertEquals(extents.get(i).data().length, buffer.limit(), "read must leave the limit alone");
            assertArrayEquals(extents.get(i).data(), Buffers.bytes(buffer), "device bytes at LBA " + extents.get(i).lba());
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void manyThreadsReadingAndWritingAtOnceNeverExceedTheQueueDepth(Backend backend) throws Exception {
        int queueDepth = 4;
        int threads = 6;
        int slotsPerThread = 8;
        int slotBlocks = 8;
        int rounds = 40;
        Path file = Scratch.file("concurrent-" + backend, (long) threads * slotsPerThread * slotBlocks * BLOCK);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (BlockDevice device = backend.open(file, queueDepth)) {
            List<Future<Integer>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long regionStart = (long) t * slotsPerThread * slotBlocks;
                long seed = 1000 + t;
                workers.add(pool.submit(() -> exerciseRegion(device, regionStart, slotsPerThread, slotBlocks, rounds, seed)));
            }
            int verified = 0;
            for (Future<Integer> worker : workers) {
                verified += worker.get();
            }
            assertEquals(threads * rounds * slotsPerThread, verified);

            DeviceStats stats = device.stats();
            assertTrue(stats.maxInFlight() <= queueDepth, "in flight peaked at " + stats.maxInFlight());
            assertEquals(queueDepth, stats.maxInFlight(), "with many more requests than slots, every slot gets used");
            assertEquals(0, stats.inFlight());
            assertEquals(0, stats.waiting());
            assertEquals((long) threads * rounds * slotsPerThread, stats.writeOps());
            assertEquals((long) threads * rounds * slotsPerThread, stats.readOps());
            if (device instanceof CapiBlockDevice capi) {
                // The library's own high-water marks: an observation from below our accounting.
                assertTrue(capi.chunkStats().maxAsyncReadsInFlight() <= queueDepth);
                assertTrue(capi.chunkStats().maxAsyncWritesInFlight() <= queueDepth);
                assertTrue(capi.chunkStats().maxAsyncReadsInFlight() + capi.chunkStats().maxAsyncWritesInFlight() > 0);
            }
        } finally {
            pool.shutdownNow();
            Files.deleteIfExists(file);
        }
    }

    /** Rounds of: write every slot of the region at once, then read every slot at once and compare. */
    private static int exerciseRegion(BlockDevice device, long regionStart, int slots, int slotBlocks, int rounds, long seed) {
        Random random = new Random(seed);
        byte[][] truth = new byte[slots][];
        int verified = 0;
        for (int round = 0; round < rounds; round++) {
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (int slot = 0; slot < slots; slot++) {
                byte[] data = new byte[(1 + random.nextInt(slotBlocks)) * BLOCK];
                random.nextBytes(data);
                truth[slot] = data;
                writes.add(device.write(regionStart + (long) slot * slotBlocks, copyToAligned(data)));
            }
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
            ByteBuffer[] buffers = new ByteBuffer[slots];
            List<CompletableFuture<Void>> reads = new ArrayList<>();
            for (int slot = 0; slot < slots; slot++) {
                buffers[slot] = AlignedBuffers.allocate(truth[slot].length);
                reads.add(device.read(regionStart + (long) slot * slotBlocks, buffers[slot]));
            }
            CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).join();
            for (int slot = 0; slot < slots; slot++) {
                assertArrayEquals(truth[slot], Buffers.bytes(buffers[slot]), "region " + regionStart + " slot " + slot);
                verified++;
            }
        }
        return verified;
    }

    static ByteBuffer copyToAligned(byte[] data) {
        ByteBuffer buffer = AlignedBuffers.allocate(data.length);
        buffer.put(data).flip();
        return buffer;
    }
}

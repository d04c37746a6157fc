package io.flashchunk.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.testing.Backend;
import io.flashchunk.testing.Scratch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every mistake a caller or an operator can make gets an error that names the path or the value. */
class BadInputTest {
    private static final int BLOCK = BlockDevice.BLOCK_SIZE;
    private static final long DEVICE_BYTES = 64L * BLOCK;

    private Path file;

    @BeforeEach
    void createFile() throws IOException {
        file = Scratch.file("bad-input", DEVICE_BYTES);
    }

    @AfterEach
    void deleteFile() throws IOException {
        Files.deleteIfExists(file);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void misalignedBufferIsRejectedWithItsAddress(Backend backend) throws Exception {
        try (BlockDevice device = backend.open(file, 4)) {
            ByteBuffer misaligned = AlignedBuffers.allocate(3 * BLOCK).position(512).limit(512 + BLOCK);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> device.read(0, misaligned));
            assertTrue(e.getMessage().contains("not aligned to 4096"), e.getMessage());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());

            ByteBuffer heap = ByteBuffer.allocate(BLOCK);
            e = assertThrows(IllegalArgumentException.class, () -> device.write(0, heap));
            assertTrue(e.getMessage().contains("direct"), e.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void lengthThatIsNotAMultipleOfTheBlockSizeIsRejectedWithTheLength(Backend backend) throws Exception {
        try (BlockDevice device = backend.open(file, 4)) {
            ByteBuffer buffer = AlignedBuffers.allocate(2 * BLOCK).limit(1000);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> device.write(0, buffer));
            assertTrue(e.getMessage().contains("length 1000 bytes"), e.getMessage());
            ByteBuffer empty = AlignedBuffers.allocate(BLOCK).limit(0);
            e = assertThrows(IllegalArgumentException.class, () -> device.read(0, empty));
            assertTrue(e.getMessage().contains("length 0 bytes"), e.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void lbaPastTheEndIsRejectedWithTheLbaAndTheCapacity(Backend backend) throws Exception {
        try (BlockDevice device = backend.open(file, 4)) {
            ByteBuffer twoBlocks = AlignedBuffers.allocate(2 * BLOCK);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> device.read(63, twoBlocks));
            assertTrue(e.getMessage().contains("at LBA 63") && e.getMessage().contains("capacity 64 blocks"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> device.write(-1, twoBlocks));
            assertTrue(e.getMessage().contains("at LBA -1"), e.getMessage());
            // The last whole extent is fine.
            device.write(62, twoBlocks).join();
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void capacityLargerThanTheDeviceIsRefusedWithBothSizes(Backend backend) {
        DeviceSpec spec = backend.spec(file).withCapacityBytes(DEVICE_BYTES + BLOCK);
        DeviceOpenException e = assertThrows(DeviceOpenException.class, () -> BlockDevices.open(spec));
        assertTrue(e.getMessage().contains(String.valueOf(DEVICE_BYTES + BLOCK)), e.getMessage());
        assertTrue(e.getMessage().contains(String.valueOf(DEVICE_BYTES)), e.getMessage());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void capacitySmallerThanTheDeviceLimitsTheLbas(Backend backend) throws Exception {
        try (BlockDevice device = BlockDevices.open(backend.spec(file).withCapacityBytes(16L * BLOCK))) {
            assertEquals(16, device.capacityBlocks());
            assertThrows(IllegalArgumentException.class, () -> device.read(16, AlignedBuffers.allocate(BLOCK)));
        }
        DeviceSpec ragged = backend.spec(file).withCapacityBytes(10_000);
        DeviceOpenException e = assertThrows(DeviceOpenException.class, () -> BlockDevices.open(ragged));
        assertTrue(e.getMessage().contains("10000") && e.getMessage().contains("multiple"), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void missingPathIsNamed(Backend backend) {
        Path missing = file.resolveSibling("no-such-device.img");
        DeviceOpenException e = assertThrows(DeviceOpenException.class, () -> BlockDevices.open(backend.spec(missing)));
        assertTrue(e.getMessage().contains(missing.toString()) && e.getMessage().contains("does not exist"), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void pathWithoutWritePermissionIsNamed(Backend backend) throws Exception {
        // Tests run as root, which ignores mode bits; the immutable attribute refuses even root.
        run("chattr", "+i", file.toString());
        try {
            DeviceOpenException e = assertThrows(DeviceOpenException.class, () -> BlockDevices.open(backend.spec(file)));
            assertTrue(e.getMessage().contains("no permission") && e.getMessage().contains(file.toString()), e.getMessage());
        } finally {
            run("chattr", "-i", file.toString());
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aReadOnlyDeviceReadsAnImmutableFileAndRefusesWrites(Backend backend) throws Exception {
        run("chattr", "+i", file.toString());
        try (BlockDevice device = BlockDevices.open(backend.spec(file).asReadOnly())) {
            device.read(3, AlignedBuffers.allocate(BLOCK)).join();
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> device.write(0, AlignedBuffers.allocate(BLOCK)));
            assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("read-only"), e.getMessage());
        } finally {
            run("chattr", "-i", file.toString());
        }
    }

    @Test
    void directoryIsNotADevice() {
        Path dir = file.getParent();
        DeviceOpenException e = assertThrows(DeviceOpenException.class,
                () -> BlockDevices.open(Backend.LIBAIO.spec(dir)));
        assertTrue(e.getMessage().contains(dir.toString()) && e.getMessage().contains("neither"), e.getMessage());
    }

    @Test
    void capiLibraryThatDoesNotLoadIsNamed() {
        String bogus = file.resolveSibling("libcflsh_block-missing.so").toString();
        DeviceSpec spec = Backend.CAPI.spec(file).withCapiLibrary(bogus);
        DeviceOpenException e = assertThrows(DeviceOpenException.class, () -> BlockDevices.open(spec));
        assertTrue(e.getMessage().contains(bogus) && e.getMessage().contains("does not load"), e.getMessage());
        // A file that is not a shared library at all.
        DeviceSpec notALibrary = Backend.CAPI.spec(file).withCapiLibrary(file.toString());
        e = assertThrows(DeviceOpenException.class, () -> BlockDevices.open(notALibrary));
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void useAfterCloseFailsTheFutureNamingTheDevice(Backend backend) throws Exception {
        BlockDevice device = backend.open(file, 4);
        device.close();
        device.close();
        CompletableFuture<Void> read = device.read(0, AlignedBuffers.allocate(BLOCK));
        CompletionException e = assertThrows(CompletionException.class, read::join);
        assertTrue(e.getCause() instanceof DeviceClosedException, String.valueOf(e.getCause()));
        assertTrue(e.getCause().getMessage().contains(file.toString()), e.getCause().getMessage());
    }

    @Test
    void badSpecValuesAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DeviceSpec.of(file).withQueueDepth(0));
        assertTrue(e.getMessage().contains("queue depth") && e.getMessage().contains(file.toString()), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> DeviceSpec.of(file).withCapacityBytes(-4096));
        assertTrue(e.getMessage().contains("-4096"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> IoEngine.parse("devices[0].engine", "spdk"));
        assertTrue(e.getMessage().contains("devices[0].engine") && e.getMessage().contains("'spdk'")
                && e.getMessage().contains("libaio, io_uring, threadpool"), e.getMessage());
        assertEquals(IoEngine.THREADPOOL, IoEngine.parse("engine", " ThreadPool "));
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
    }
}

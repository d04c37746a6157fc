package io.flashchunk.cache;

import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import io.flashchunk.testing.Scratch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

/**
 * Device files and data files that outlive one cache, so a test can stop a cache and start another
 * on the same devices. Data files are real files: recovery checks their identities.
 */
final class RestartFixture implements AutoCloseable {
    final List<Path> devices = new ArrayList<>();
    final Path dataDir;

    RestartFixture(int deviceCount, long deviceBytes) throws IOException {
        for (int i = 0; i < deviceCount; i++) {
            devices.add(Scratch.file("restart-dev" + i, deviceBytes));
        }
        dataDir = Files.createTempDirectory(Scratch.dir(), "data");
    }

    SegmentFlashCache start(Consumer<CacheConfig.Builder> settings) throws IOException {
        return startWrapped(settings, (i, device) -> device, System::nanoTime);
    }

    /**
     * Starts a cache whose {@code i}-th device is {@code wrap.apply(i, device)} (a fault injector, say),
     * with {@code clock} as its clock (its breakers').
     */
    SegmentFlashCache startWrapped(Consumer<CacheConfig.Builder> settings, BiFunction<Integer, BlockDevice, BlockDevice> wrap,
                                   LongSupplier clock) throws IOException {
        int[] next = {0};
        return startCompact(devices, settings, 0, device -> wrap.apply(next[0]++, device), clock);
    }

    /** Starts a compact cache on the devices (a child JVM's, say). */
    static SegmentFlashCache startCompact(List<Path> devicePaths, Consumer<CacheConfig.Builder> settings)
            throws IOException {
        return startCompact(devicePaths, settings, 0);
    }

    /** Starts a compact cache on the devices, using {@code capacityBytes} of each (0: all). */
    static SegmentFlashCache startCompact(List<Path> devicePaths, Consumer<CacheConfig.Builder> settings, long capacityBytes)
            throws IOException {
        return startCompact(devicePaths, settings, capacityBytes, device -> device, System::nanoTime);
    }

    /** Opens the devices, each wrapped, and starts the cache on them; on failure closes them. */
    private static SegmentFlashCache startCompact(List<Path> devicePaths, Consumer<CacheConfig.Builder> settings,
                                                  long capacityBytes, UnaryOperator<BlockDevice> wrap, LongSupplier clock)
            throws IOException {
        // 1 MiB segments: the scratch devices hold many, so admission takes every chunk until flash is
        // full (with one 16 MiB segment it would weigh each chunk against that segment's at once).
        Consumer<CacheConfig.Builder> compact = c -> c.segmentBytes(1 << 20);
        CacheConfig config = config(devicePaths, compact.andThen(settings), capacityBytes);
        List<BlockDevice> opened = new ArrayList<>();
        try {
            for (DeviceSpec spec : config.devices()) {
                opened.add(wrap.apply(BlockDevices.open(spec)));
            }
            return new SegmentFlashCache(config, opened, clock);
        } catch (IOException | RuntimeException e) {
            opened.forEach(BlockDevice::close);
            throw e;
        }
    }

    private static CacheConfig config(List<Path> devicePaths, Consumer<CacheConfig.Builder> settings, long capacityBytes) {
        // These tests assert that chunks are served after a restart, not how fast: a read past the
        // timeout is a correct miss, so a loaded machine must not fail them.
        // Checkpoints only when a test asks: tests assert what a given checkpoint brings back.
        CacheConfig.Builder builder = CacheConfig.builder().readTimeoutMillis(10_000).checkpointChangePercent(0);
        for (Path path : devicePaths) {
            DeviceSpec spec = DeviceSpec.of(path).withEngine(IoEngine.LIBAIO).withQueueDepth(16)
                    .withCapacityBytes(capacityBytes);
            builder.device(spec);
        }
        settings.accept(builder);
        return builder.build();
    }

    /** A real data file with some bytes (its identity is what counts, not its content). */
    Path dataFile(String name) throws IOException {
        Path file = dataDir.resolve(name);
        Files.write(file, new byte[] {1, 2, 3, (byte) name.length()});
        return file;
    }

    @Override
    public void close() throws IOException {
        for (Path device : devices) {
            Files.deleteIfExists(device);
        }
        try (var files = Files.list(dataDir)) {
            for (Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(dataDir);
    }
}

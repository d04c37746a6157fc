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

    FlashChunkCache start(Consumer<CacheConfig.Builder> settings) throws IOException {
        return start(devices, settings);
    }

    static FlashChunkCache start(List<Path> devicePaths, Consumer<CacheConfig.Builder> settings) throws IOException {
        return start(devicePaths, settings, 0);
    }

    /** Starts a cache on the devices, using {@code capacityBytes} of each (0: all). */
    static FlashChunkCache start(List<Path> devicePaths, Consumer<CacheConfig.Builder> settings, long capacityBytes)
            throws IOException {
        return start(devicePaths, settings, capacityBytes, true, device -> device, System::nanoTime);
    }

    /** Starts a cache whose recovered entries move into the index only when read (no background mover). */
    FlashChunkCache startWithoutMoving() throws IOException {
        return start(devices, c -> { }, 0, false, device -> device, System::nanoTime);
    }

    /** Starts a cache whose {@code i}-th device is {@code wrap.apply(i, device)} (a fault injector, say). */
    FlashChunkCache startWrapped(Consumer<CacheConfig.Builder> settings, BiFunction<Integer, BlockDevice, BlockDevice> wrap)
            throws IOException {
        int[] next = {0};
        return start(devices, settings, 0, true, device -> wrap.apply(next[0]++, device), System::nanoTime);
    }

    /** As {@link #startWrapped(Consumer, BiFunction)}, with {@code clock} as the cache's clock (its breakers'). */
    FlashChunkCache startWrapped(Consumer<CacheConfig.Builder> settings, BiFunction<Integer, BlockDevice, BlockDevice> wrap,
            LongSupplier clock) throws IOException {
        int[] next = {0};
        return start(devices, settings, 0, true, device -> wrap.apply(next[0]++, device), clock);
    }

    /** Starts a cache of {@code engine} on the devices. */
    FlashCache start(CacheConfig.Engine engine, Consumer<CacheConfig.Builder> settings) throws IOException {
        return startWrapped(engine, settings, (i, device) -> device, System::nanoTime);
    }

    /**
     * As {@link #startWrapped(Consumer, BiFunction, LongSupplier)}, on {@code engine}: today's
     * ({@link FlashChunkCache}) or the compact one ({@link CompactChunkCache}), for tests that hold both to
     * the same promise.
     */
    FlashCache startWrapped(CacheConfig.Engine engine, Consumer<CacheConfig.Builder> settings,
                            BiFunction<Integer, BlockDevice, BlockDevice> wrap, LongSupplier clock) throws IOException {
        if (engine == CacheConfig.Engine.CLASSIC) {
            return startWrapped(settings, wrap, clock);
        }
        int[] next = {0};
        return startCompact(devices, settings, device -> wrap.apply(next[0]++, device), clock);
    }

    /** Starts a compact cache on the devices (a child JVM's, say). */
    static CompactChunkCache startCompact(List<Path> devicePaths, Consumer<CacheConfig.Builder> settings)
            throws IOException {
        return startCompact(devicePaths, settings, device -> device, System::nanoTime);
    }

    private static CompactChunkCache startCompact(List<Path> devicePaths, Consumer<CacheConfig.Builder> settings,
                                                  UnaryOperator<BlockDevice> wrap, LongSupplier clock) throws IOException {
        // 1 MiB segments: the scratch devices hold many, so admission takes every chunk until flash is
        // full (with one 16 MiB segment it would weigh each chunk against that segment's at once).
        Consumer<CacheConfig.Builder> compact = c -> c.engine(CacheConfig.Engine.COMPACT).segmentBytes(1 << 20);
        return open(config(devicePaths, compact.andThen(settings), 0), wrap,
                (config, opened) -> new CompactChunkCache(config, opened, clock));
    }

    /** Makes a cache of a configuration and the devices it names, opened. */
    private interface CacheMaker<C extends FlashCache> {
        C make(CacheConfig config, List<BlockDevice> devices) throws IOException;
    }

    /** Opens the configuration's devices, each wrapped, and makes the cache; on failure closes them. */
    private static <C extends FlashCache> C open(CacheConfig config, UnaryOperator<BlockDevice> wrap, CacheMaker<C> maker)
            throws IOException {
        List<BlockDevice> opened = new ArrayList<>();
        try {
            for (DeviceSpec spec : config.devices()) {
                opened.add(wrap.apply(BlockDevices.open(spec)));
            }
            return maker.make(config, opened);
        } catch (IOException | RuntimeException e) {
            opened.forEach(BlockDevice::close);
            throw e;
        }
    }

    private static CacheConfig config(List<Path> devicePaths, Consumer<CacheConfig.Builder> settings, long capacityBytes) {
        // These tests assert that chunks are served after a restart, not how fast: a read past the
        // timeout is a correct miss, so a loaded machine must not fail them.
        // Checkpoints only when a test asks: tests assert what a given checkpoint brings back.
        CacheConfig.Builder builder = CacheConfig.builder().maintenanceIntervalMillis(3_600_000)
                .minCheckpointIntervalMillis(20).readTimeoutMillis(10_000).checkpointChangePercent(0);
        for (Path path : devicePaths) {
            DeviceSpec spec = DeviceSpec.of(path).withEngine(IoEngine.LIBAIO).withQueueDepth(16)
                    .withCapacityBytes(capacityBytes);
            builder.device(spec);
        }
        settings.accept(builder);
        return builder.build();
    }

    private static FlashChunkCache start(List<Path> devicePaths, Consumer<CacheConfig.Builder> settings,
                                         long capacityBytes, boolean moveRecovered, UnaryOperator<BlockDevice> wrap,
                                         LongSupplier clock) throws IOException {
        return open(config(devicePaths, settings, capacityBytes), wrap,
                (config, opened) -> new FlashChunkCache(config, opened, moveRecovered, clock));
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

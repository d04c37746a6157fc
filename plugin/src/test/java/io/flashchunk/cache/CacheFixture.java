package io.flashchunk.cache;

import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.LibC;
import io.flashchunk.testing.Backend;
import io.flashchunk.testing.Scratch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** A cache on scratch-file devices, closed and deleted together. */
final class CacheFixture implements AutoCloseable {
    final List<Path> deviceFiles = new ArrayList<>();
    final FlashChunkCache cache;

    private CacheFixture(List<Backend> backends, long deviceBytes, Consumer<CacheConfig.Builder> settings)
            throws Exception {
        // Checkpoints only when a test asks (or the reserve fills): tests assert what lies between two.
        CacheConfig.Builder builder = CacheConfig.builder().maintenanceIntervalMillis(3_600_000).minCheckpointIntervalMillis(20)
                .checkpointChangePercent(0);
        List<BlockDevice> devices = new ArrayList<>();
        try {
            for (Backend backend : backends) {
                Path file = Scratch.file("cache-" + backend, deviceBytes);
                deviceFiles.add(file);
                DeviceSpec spec = backend.spec(file).withQueueDepth(16);
                builder.device(spec);
                devices.add(BlockDevices.open(spec));
            }
            settings.accept(builder);
            this.cache = new FlashChunkCache(builder.build(), devices);
        } catch (Exception | Error e) {
            devices.forEach(BlockDevice::close);
            deleteFiles();
            throw e;
        }
    }

    static CacheFixture of(long deviceBytes, Consumer<CacheConfig.Builder> settings) throws Exception {
        return new CacheFixture(List.of(Backend.LIBAIO), deviceBytes, settings);
    }

    static CacheFixture of(List<Backend> backends, long deviceBytes, Consumer<CacheConfig.Builder> settings)
            throws Exception {
        return new CacheFixture(backends, deviceBytes, settings);
    }

    /**
     * A cache on one device of our capiblock library with faults injected: the library reads the
     * FLASHCHUNK_CBLK_* variables when a device opens, so they are set just for the opening.
     */
    static CacheFixture onFaultyCapi(Map<String, String> faults, long deviceBytes, Consumer<CacheConfig.Builder> settings)
            throws Exception {
        faults.forEach((name, value) -> LibC.setenv(name, value, 1));
        try {
            return new CacheFixture(List.of(Backend.CAPI), deviceBytes, settings);
        } finally {
            faults.keySet().forEach(LibC::unsetenv);
        }
    }

    @Override
    public void close() throws Exception {
        cache.close();
        deleteFiles();
    }

    private void deleteFiles() throws java.io.IOException {
        for (Path file : deviceFiles) {
            Files.deleteIfExists(file);
        }
    }
}

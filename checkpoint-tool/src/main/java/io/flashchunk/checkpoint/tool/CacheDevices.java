package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.engine.CacheInspection;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceOpenException;
import io.flashchunk.device.DeviceSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * "What is on these devices": the cache's devices opened read-only, in the order given (the
 * cache's configured order, one address space each), read once as the engine's start and
 * recovery read them ({@link #cache}). The devices stay open for reading cached chunks
 * ({@code verify --data}) until this is closed.
 */
final class CacheDevices implements AutoCloseable {
    private final List<BlockDevice> devices;
    private final CacheInspection cache;

    private CacheDevices(List<BlockDevice> devices, CacheInspection cache) {
        this.devices = devices;
        this.cache = cache;
    }

    /**
     * Opens every path read-only (the default engine: libaio where present) and reads it.
     *
     * @throws PerChunkFormatException when a device holds the removed per-chunk engine's format:
     *     nothing past block 0 is read, and every device is closed again
     */
    static CacheDevices open(List<Path> paths) throws DeviceOpenException, PerChunkFormatException {
        List<BlockDevice> opened = new ArrayList<>();
        try {
            for (Path path : paths) {
                opened.add(BlockDevices.open(DeviceSpec.of(path).asReadOnly()));
            }
        } catch (DeviceOpenException | RuntimeException e) {
            opened.forEach(BlockDevice::close);
            throw e;
        }
        try {
            List<StorageDriver> drivers = opened.stream().map(CacheInspection::driver)
                    .collect(Collectors.toUnmodifiableList());
            List<String> perChunk = drivers.stream().map(PerChunkFormat::problem).filter(Objects::nonNull)
                    .collect(Collectors.toUnmodifiableList());
            if (!perChunk.isEmpty()) {
                throw new PerChunkFormatException(perChunk);
            }
            return new CacheDevices(List.copyOf(opened), CacheInspection.load(drivers));
        } catch (PerChunkFormatException | RuntimeException e) {
            opened.forEach(BlockDevice::close);
            throw e;
        }
    }

    /** The devices as the engine's start and recovery see them. */
    CacheInspection cache() {
        return cache;
    }

    @Override
    public void close() {
        devices.forEach(BlockDevice::close);
    }
}

package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.checkpoint.CheckpointFormatException;
import io.flashchunk.cache.compact.CompactSuperblock;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceOpenException;
import io.flashchunk.device.DeviceSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * "What is on these devices": the cache's devices opened read-only, in the order given (the
 * cache's configured order, one address space each), each scanned once: as the per-chunk engine's
 * ({@link #scans}), or, when a device holds the compact engine's superblock, as the compact
 * engine's ({@link #compact}). The devices stay open for reading cached chunks
 * ({@code verify --data}) until this is closed.
 */
final class CacheDevices implements AutoCloseable {
    private final List<BlockDevice> devices;
    private final List<DeviceScan> scans;
    private final CompactCache compact;

    private CacheDevices(List<BlockDevice> devices, List<DeviceScan> scans, CompactCache compact) {
        this.devices = devices;
        this.scans = scans;
        this.compact = compact;
    }

    /** Opens every path read-only (the default engine: libaio where present) and scans it. */
    static CacheDevices open(List<Path> paths) throws DeviceOpenException {
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
            if (opened.stream().anyMatch(CacheDevices::holdsCompactSuperblock)) {
                return new CacheDevices(List.copyOf(opened), List.of(), CompactCache.load(opened));
            }
            List<DeviceScan> scans = new ArrayList<>();
            for (BlockDevice device : opened) {
                scans.add(DeviceScanner.scan(device));
            }
            return new CacheDevices(List.copyOf(opened), List.copyOf(scans), null);
        } catch (RuntimeException e) {
            opened.forEach(BlockDevice::close);
            throw e;
        }
    }

    private static boolean holdsCompactSuperblock(BlockDevice device) {
        try {
            return CompactSuperblock.isCompactFormat(DeviceScanner.readBlock(device, 0));
        } catch (CheckpointFormatException e) {
            return false; // unreadable: the per-chunk scan reports it
        }
    }

    /** The compact engine's view of the devices when one holds its superblock, else null. */
    CompactCache compact() {
        return compact;
    }

    /** One scan per device, in the order given (empty for the compact engine's devices: see {@link #compact}). */
    List<DeviceScan> scans() {
        return scans;
    }

    /** The open device behind {@code scans().get(i)}. */
    BlockDevice device(int i) {
        return devices.get(i);
    }

    @Override
    public void close() {
        devices.forEach(BlockDevice::close);
    }
}

package io.flashchunk.device;

import io.flashchunk.device.capi.CapiBlockDevice;
import io.flashchunk.device.direct.DirectIoDevice;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the device a {@link DeviceSpec} describes and logs, once, what it got. */
public final class BlockDevices {
    private static final Logger LOG = LoggerFactory.getLogger(BlockDevices.class);

    private BlockDevices() {
    }

    /**
     * Opens the device, locked for as long as it is open (see {@link DeviceLock}) unless it is
     * opened read-only, as inspection tools do.
     */
    public static BlockDevice open(DeviceSpec spec) throws DeviceOpenException {
        DeviceLock lock = spec.readOnly() ? null : DeviceLock.acquire(spec.path());
        QueuedBlockDevice device;
        try {
            device = spec.engine() == IoEngine.CAPI ? CapiBlockDevice.open(spec) : DirectIoDevice.open(spec);
        } catch (DeviceOpenException | RuntimeException e) {
            if (lock != null) {
                lock.close();
            }
            throw e;
        }
        if (lock != null) {
            device.holdUntilClosed(lock);
        }
        LOG.info("flash device {}: engine {}, {} blocks of {} bytes ({} MiB), queue depth {}", device.path(),
                device.engine().configName(), device.capacityBlocks(), BlockDevice.BLOCK_SIZE,
                device.capacityBlocks() * BlockDevice.BLOCK_SIZE >> 20, device.queueDepth());
        return device;
    }

    /**
     * Opens every device, or none: a device listed twice (by another path, a symbolic link say) is
     * refused by name before anything is opened.
     */
    public static List<BlockDevice> openAll(List<DeviceSpec> specs) throws DeviceOpenException {
        Map<String, Path> seen = new HashMap<>();
        for (DeviceSpec spec : specs) {
            String identity;
            try {
                FileStatus status = FileStatus.of(spec.path().toString());
                identity = status.isBlockDevice() ? "block device " + status.specialDevice()
                        : "file " + status.device() + ":" + status.inode();
            } catch (java.io.IOException e) {
                continue; // opening it says what is wrong with it
            }
            Path first = seen.putIfAbsent(identity, spec.path());
            if (first != null) {
                throw new DeviceOpenException("device " + spec.path() + " is the same device as " + first
                        + ", listed before it: each device may hold one address space only");
            }
        }
        List<BlockDevice> devices = new ArrayList<>();
        try {
            for (DeviceSpec spec : specs) {
                devices.add(open(spec));
            }
            return devices;
        } catch (DeviceOpenException | RuntimeException e) {
            devices.forEach(BlockDevice::close);
            throw e;
        }
    }
}

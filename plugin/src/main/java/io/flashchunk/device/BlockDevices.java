package io.flashchunk.device;

import io.flashchunk.device.capi.CapiBlockDevice;
import io.flashchunk.device.direct.DirectIoDevice;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the device a {@link DeviceSpec} describes and logs, once, what it got. */
public final class BlockDevices {
    private static final Logger LOG = LoggerFactory.getLogger(BlockDevices.class);

    private BlockDevices() {
    }

    public static BlockDevice open(DeviceSpec spec) throws DeviceOpenException {
        BlockDevice device = spec.engine() == IoEngine.CAPI ? CapiBlockDevice.open(spec) : DirectIoDevice.open(spec);
        LOG.info("flash device {}: engine {}, {} blocks of {} bytes ({} MiB), queue depth {}", device.path(),
                device.engine().configName(), device.capacityBlocks(), BlockDevice.BLOCK_SIZE,
                device.capacityBlocks() * BlockDevice.BLOCK_SIZE >> 20, device.queueDepth());
        return device;
    }
}

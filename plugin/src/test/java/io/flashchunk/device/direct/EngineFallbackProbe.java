package io.flashchunk.device.direct;

import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceOpenException;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import java.nio.file.Path;

/** Run in a child JVM whose libaio cannot load: prints which engine "auto" chose and what "libaio" said. */
public final class EngineFallbackProbe {
    private EngineFallbackProbe() {
    }

    public static void main(String[] args) throws Exception {
        Path path = Path.of(args[0]);
        try (BlockDevice device = BlockDevices.open(DeviceSpec.of(path).withEngine(IoEngine.AUTO))) {
            System.out.println("auto=" + device.engine().configName());
        }
        try (BlockDevice device = BlockDevices.open(DeviceSpec.of(path).withEngine(IoEngine.LIBAIO))) {
            System.out.println("libaio=opened");
        } catch (DeviceOpenException e) {
            System.out.println("libaio-error=" + e.getMessage());
        }
    }
}

package io.flashchunk.testing;

import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceOpenException;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import java.nio.file.Path;

/** Every way the project moves bytes, for tests that must hold on each. */
public enum Backend {
    LIBAIO(IoEngine.LIBAIO),
    IO_URING(IoEngine.IO_URING),
    THREADPOOL(IoEngine.THREADPOOL),
    CAPI(IoEngine.CAPI);

    private final IoEngine engine;

    Backend(IoEngine engine) {
        this.engine = engine;
    }

    public IoEngine engine() {
        return engine;
    }

    public DeviceSpec spec(Path path) {
        return DeviceSpec.of(path).withEngine(engine).withCapiLibrary(Scratch.capiLibrary());
    }

    public BlockDevice open(Path path, int queueDepth) throws DeviceOpenException {
        return BlockDevices.open(spec(path).withQueueDepth(queueDepth));
    }
}

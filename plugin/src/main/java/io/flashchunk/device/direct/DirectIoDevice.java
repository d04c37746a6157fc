package io.flashchunk.device.direct;

import io.flashchunk.device.DeviceOpenException;
import io.flashchunk.device.DevicePaths;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import io.flashchunk.device.IoRequest;
import io.flashchunk.device.QueuedBlockDevice;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device on a regular file or a raw block device ({@code /dev/nvme0n1}, {@code /dev/loopN}) with
 * O_DIRECT, so cached chunks never pass through (or crowd out) the page cache. The engine is libaio
 * (with io_uring rings for reads in readers' threads: {@code io_uring}), or positional I/O on a thread
 * pool where libaio cannot be loaded.
 */
public final class DirectIoDevice extends QueuedBlockDevice {
    private static final Logger LOG = LoggerFactory.getLogger(DirectIoDevice.class);

    private final IoEngine engine;
    private final DirectIoEngine io;

    private DirectIoDevice(String path, long capacityBlocks, int queueDepth, IoEngine engine, DirectIoEngine io,
                           boolean readOnly) {
        super(path, capacityBlocks, queueDepth, readOnly);
        this.engine = engine;
        this.io = io;
        io.start(this::complete);
    }

    public static DirectIoDevice open(DeviceSpec spec) throws DeviceOpenException {
        Path path = spec.path();
        DevicePaths.checkUsable(path);
        long capacityBlocks = DevicePaths.capacityBlocks(path, spec.capacityBytes(), DevicePaths.sizeBytes(path));
        IoEngine engine = resolve(spec);
        String name = path.toString();
        DirectIoEngine io = engine == IoEngine.THREADPOOL
                ? PositionalIoEngine.open(name, spec.queueDepth(), spec.readOnly())
                : AioEngine.open(name, spec.queueDepth(), spec.readOnly(), engine == IoEngine.IO_URING);
        return new DirectIoDevice(name, capacityBlocks, spec.queueDepth(), engine, io, spec.readOnly());
    }

    private static IoEngine resolve(DeviceSpec spec) throws DeviceOpenException {
        switch (spec.engine()) {
            case LIBAIO:
                if (!AioEngine.available()) {
                    throw new DeviceOpenException("engine libaio was asked for " + spec.path() + " but "
                            + AioEngine.unavailableReason() + "; install libaio1 or set the engine to threadpool");
                }
                return IoEngine.LIBAIO;
            case IO_URING:
                if (!AioEngine.available()) {
                    throw new DeviceOpenException("engine io_uring was asked for " + spec.path() + " but "
                            + AioEngine.unavailableReason() + " (its queue is libaio's); install libaio1");
                }
                String noRings = UringReads.unavailableReason();
                if (noRings != null) {
                    throw new DeviceOpenException("engine io_uring was asked for " + spec.path() + " but " + noRings
                            + "; set the engine to libaio");
                }
                return IoEngine.IO_URING;
            case THREADPOOL:
                return IoEngine.THREADPOOL;
            case AUTO:
                if (AioEngine.available()) {
                    return IoEngine.LIBAIO;
                }
                LOG.warn("flash device {}: {}; falling back to the thread-pool engine", spec.path(),
                        AioEngine.unavailableReason());
                return IoEngine.THREADPOOL;
            default:
                throw new DeviceOpenException("engine " + spec.engine().configName() + " is not a direct-I/O engine (device "
                        + spec.path() + ")");
        }
    }

    @Override
    public IoEngine engine() {
        return engine;
    }

    @Override
    protected void dispatch(IoRequest[] batch, int count) {
        io.dispatch(batch, count);
    }

    @Override
    protected boolean readsInCallerThread() {
        return io.readsInCallerThread();
    }

    @Override
    protected void readInCallerThread(long offset, int length, long address) throws java.io.IOException {
        io.readInCallerThread(offset, length, address);
    }

    @Override
    protected boolean readInCallerThread(IoRequest request, long timeoutNanos) {
        return io.readWithin(request, timeoutNanos, this::completeCallerRead);
    }

    /** The reads in readers' threads (libaio devices where the library loads), or null. */
    UringReads uringReads() {
        return io instanceof AioEngine ? ((AioEngine) io).uringReads() : null;
    }

    @Override
    protected boolean discardBytes(long offset, long length) throws java.io.IOException {
        return io.discard(offset, length);
    }

    @Override
    protected void flushWrites() throws java.io.IOException {
        io.flush();
    }

    @Override
    protected void release(boolean drained) {
        if (drained) {
            io.close();
        }
    }
}

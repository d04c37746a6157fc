package io.flashchunk.device.capi;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.flashchunk.device.DeviceIoException;
import io.flashchunk.device.DeviceOpenException;
import io.flashchunk.device.DevicePaths;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.Errno;
import io.flashchunk.device.FileStatus;
import io.flashchunk.device.IoEngine;
import io.flashchunk.device.IoOp;
import io.flashchunk.device.IoRequest;
import io.flashchunk.device.LibC;
import io.flashchunk.device.QueuedBlockDevice;
import java.nio.file.Files;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device on CAPI-Flash through the capiblock API. Requests carry our own tags (one per queue
 * slot, {@code CBLK_ARW_USER_TAG_FLAG}) so a completion can never arrive before we know its request.
 * One reaper thread harvests completions with {@code cblk_aresult(NEXT_TAG | BLOCKING)}, and only
 * while requests are outstanding, so it never depends on how the library treats an idle chunk.
 */
public final class CapiBlockDevice extends QueuedBlockDevice {
    private static final Logger LOG = LoggerFactory.getLogger(CapiBlockDevice.class);
    private static final int STATS_BYTES = 1024;

    private final int chunkId;
    private final Memory tagCells;
    private final AtomicReferenceArray<IoRequest> requestInSlot;
    private final Integer[] slotIds;
    private final ArrayBlockingQueue<Integer> freeSlots;
    // One permit per request submitted and not yet harvested.
    private final Semaphore outstanding = new Semaphore(0);
    private final Thread reaper;
    private volatile boolean running = true;
    // A regular file or block device behind the library (file mode): flushed with fdatasync.
    private final boolean syncsByPath;

    private CapiBlockDevice(String path, long capacityBlocks, int queueDepth, int chunkId, boolean readOnly,
                            boolean syncsByPath) {
        super(path, capacityBlocks, queueDepth, readOnly);
        this.chunkId = chunkId;
        this.syncsByPath = syncsByPath;
        this.tagCells = new Memory((long) queueDepth * Integer.BYTES);
        this.requestInSlot = new AtomicReferenceArray<>(queueDepth);
        this.slotIds = new Integer[queueDepth];
        this.freeSlots = new ArrayBlockingQueue<>(queueDepth);
        for (int slot = 0; slot < queueDepth; slot++) {
            tagCells.setInt((long) slot * Integer.BYTES, slot);
            slotIds[slot] = slot;
            freeSlots.add(slotIds[slot]);
        }
        this.reaper = new Thread(this::reap, "flashchunk-capi-reaper " + path);
        reaper.setDaemon(true);
        reaper.start();
    }

    public static CapiBlockDevice open(DeviceSpec spec) throws DeviceOpenException {
        String path = spec.path().toString();
        CapiBlockLibrary.acquire(spec.capiLibrary());
        boolean opened = false;
        try {
            if (!Files.exists(spec.path())) {
                throw new DeviceOpenException("device path " + path + " does not exist");
            }
            int id = CapiBlockLibrary.cblk_open(path, spec.queueDepth(), spec.readOnly() ? LibC.O_RDONLY : LibC.O_RDWR, 0, 0);
            if (id == CapiBlockLibrary.NULL_CHUNK_ID) {
                int errno = Native.getLastError();
                if (Errno.isPermissionDenied(errno)) {
                    throw new DeviceOpenException("no permission to open " + path + " with cblk_open: " + Errno.describe(errno));
                }
                throw new DeviceOpenException("cblk_open(" + path + ") in " + spec.capiLibrary() + " failed: "
                        + Errno.describe(errno));
            }
            try (Memory lunBlocks = new Memory(Long.BYTES)) {
                if (CapiBlockLibrary.cblk_get_lun_size(id, Pointer.nativeValue(lunBlocks), 0) != 0) {
                    int errno = Native.getLastError();
                    CapiBlockLibrary.cblk_close(id, 0);
                    throw new DeviceOpenException("cblk_get_lun_size(" + path + ") failed: " + Errno.describe(errno));
                }
                long capacity;
                try {
                    capacity = DevicePaths.capacityBlocks(spec.path(), spec.capacityBytes(),
                            lunBlocks.getLong(0) * BLOCK_SIZE);
                } catch (DeviceOpenException e) {
                    CapiBlockLibrary.cblk_close(id, 0);
                    throw e;
                }
                opened = true;
                return new CapiBlockDevice(path, capacity, spec.queueDepth(), id, spec.readOnly(), isFileOrBlockDevice(path));
            }
        } finally {
            if (!opened) {
                CapiBlockLibrary.releaseDevice();
            }
        }
    }

    private static boolean isFileOrBlockDevice(String path) {
        try {
            FileStatus status = FileStatus.of(path);
            return status.isRegularFile() || status.isBlockDevice();
        } catch (java.io.IOException e) {
            return false;
        }
    }

    @Override
    public IoEngine engine() {
        return IoEngine.CAPI;
    }

    @Override
    protected void dispatch(IoRequest[] batch, int count) {
        for (int i = 0; i < count; i++) {
            start(batch[i]);
        }
    }

    private void start(IoRequest request) {
        Integer slot = freeSlots.poll();
        if (slot == null) {
            throw new IllegalStateException("no free tag for " + path() + ": queue-depth accounting is broken");
        }
        requestInSlot.set(slot, request);
        long tag = Pointer.nativeValue(tagCells) + (long) slot * Integer.BYTES;
        int rc = request.op() == IoOp.READ
                ? CapiBlockLibrary.cblk_aread(chunkId, request.address(), request.lba(), request.blocks(), tag, 0,
                        CapiBlockLibrary.CBLK_ARW_USER_TAG_FLAG)
                : CapiBlockLibrary.cblk_awrite(chunkId, request.address(), request.lba(), request.blocks(), tag, 0,
                        CapiBlockLibrary.CBLK_ARW_USER_TAG_FLAG);
        if (rc != 0) {
            int errno = Native.getLastError();
            finish(slot, new DeviceIoException(request, path(), errno, "cblk_a" + request.op().verb() + ": "
                    + Errno.describe(errno)));
            return;
        }
        outstanding.release();
    }

    private void reap() {
        try (Memory tag = new Memory(Integer.BYTES); Memory status = new Memory(Long.BYTES)) {
            while (running) {
                if (!outstanding.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                tag.setInt(0, -1);
                int rc = CapiBlockLibrary.cblk_aresult(chunkId, Pointer.nativeValue(tag), Pointer.nativeValue(status),
                        CapiBlockLibrary.CBLK_ARESULT_NEXT_TAG | CapiBlockLibrary.CBLK_ARESULT_BLOCKING);
                int errno = rc < 0 ? Native.getLastError() : 0;
                int slot = tag.getInt(0);
                IoRequest request = slot >= 0 && slot < queueDepth() ? requestInSlot.get(slot) : null;
                if (request == null) {
                    // Nothing harvested: the permit still stands for a request in flight.
                    outstanding.release();
                    if (rc < 0) {
                        LOG.error("cblk_aresult on {} returned no request: {}", path(), Errno.describe(errno));
                        Thread.sleep(1);
                    }
                    continue;
                }
                if (rc == request.blocks()) {
                    finish(slot, null);
                } else if (rc < 0) {
                    finish(slot, new DeviceIoException(request, path(), errno, "cblk_aresult: " + Errno.describe(errno)));
                } else {
                    finish(slot, new DeviceIoException(request, path(), 0, "short " + request.op().verb() + ": " + rc
                            + " of " + request.blocks() + " blocks"));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void finish(int slot, Throwable failure) {
        IoRequest request = requestInSlot.getAndSet(slot, null);
        freeSlots.add(slotIds[slot]);
        complete(request, failure);
    }

    /** The library's own counters for this device's chunk. */
    public CapiChunkStats chunkStats() {
        try (Memory stats = new Memory(STATS_BYTES)) {
            stats.clear();
            if (CapiBlockLibrary.cblk_get_stats(chunkId, Pointer.nativeValue(stats), 0) != 0) {
                throw new IllegalStateException("cblk_get_stats(" + path() + ") failed: "
                        + Errno.describe(Native.getLastError()));
            }
            // chunk_stats_t field offsets (LP64).
            return new CapiChunkStats(stats.getLong(32), stats.getLong(40), stats.getInt(76), stats.getInt(72),
                    stats.getLong(80), stats.getLong(88), stats.getLong(96));
        }
    }

    /** capiblock has no flush: a write is on flash when its completion is harvested. */
    @Override
    protected void flushWrites() throws java.io.IOException {
        if (!syncsByPath) {
            return; // the card: the capiblock API has no flush, and a write it completed is durable
        }
        // File mode (the real library's, or ours): the library's writes may sit in the page cache or the
        // drive's cache. fdatasync on any descriptor of the file flushes them.
        int fd;
        try {
            fd = LibC.open(path(), LibC.O_RDONLY | LibC.O_CLOEXEC);
        } catch (com.sun.jna.LastErrorException e) {
            throw new java.io.IOException("flush of " + path() + " failed: cannot open it: " + Errno.describe(e.getErrorCode()));
        }
        try {
            LibC.fdatasync(fd);
        } catch (com.sun.jna.LastErrorException e) {
            throw new java.io.IOException("flush of " + path() + " failed: fdatasync: " + Errno.describe(e.getErrorCode()));
        } finally {
            try {
                LibC.close(fd);
            } catch (com.sun.jna.LastErrorException e) {
                // read-only descriptor
            }
        }
    }

    @Override
    protected void release(boolean drained) {
        running = false;
        if (!drained) {
            return; // the reaper may be blocked in cblk_aresult on a request that never ends
        }
        try {
            reaper.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (CapiBlockLibrary.cblk_close(chunkId, 0) != 0) {
            LOG.warn("cblk_close({}) failed: {}", path(), Errno.describe(Native.getLastError()));
        }
        CapiBlockLibrary.releaseDevice();
    }
}

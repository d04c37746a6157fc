package io.flashchunk.device.direct;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.flashchunk.device.DeviceIoException;
import io.flashchunk.device.DeviceOpenException;
import io.flashchunk.device.Errno;
import io.flashchunk.device.IoOp;
import io.flashchunk.device.IoRequest;
import io.flashchunk.device.LibC;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * O_DIRECT I/O with Linux native AIO. Callers' threads fill pre-allocated iocbs and submit them
 * (several per io_submit when requests have queued up); one reaper thread waits in io_getevents and
 * completes requests. One iocb slot per queue slot, so a free slot always exists for a dispatched
 * request.
 */
final class AioEngine implements DirectIoEngine {
    private static final Logger LOG = LoggerFactory.getLogger(AioEngine.class);

    // struct iocb and struct io_event on x86_64 / aarch64 Linux (little-endian, LP64).
    private static final int IOCB_SIZE = 64;
    private static final int IOCB_DATA = 0;
    private static final int IOCB_OPCODE = 16;
    private static final int IOCB_FD = 20;
    private static final int IOCB_BUF = 24;
    private static final int IOCB_NBYTES = 32;
    private static final int IOCB_OFFSET = 40;
    private static final short IO_CMD_PREAD = 0;
    private static final short IO_CMD_PWRITE = 1;
    private static final int EVENT_SIZE = 32;
    private static final int EVENT_DATA = 0;
    private static final int EVENT_RES = 16;
    private static final long REAPER_WAKEUP_NANOS = 100_000_000L;
    private static final int MAX_BATCH = 64;
    // Completions restart requests in small groups: fewer io_submit calls than one each, while holding
    // a whole event batch back until its end left the device idle and cost about 15% of the IOPS at
    // queue depth 32 (docs/design.md).
    private static final int DEFERRED_SUBMIT_BATCH = 4;

    private final String path;
    private final int fd;
    private final boolean blockDevice;
    private final long context;
    private final int slotCount;
    private final Memory iocbMemory;
    private final ByteBuffer iocbs;
    // Cell i holds the address of iocb i: a one-request io_submit passes the cell's address.
    private final Memory iocbPointerCells;
    // Written by the submitting thread, read by the reaper: atomic for visibility across the syscall.
    private final AtomicReferenceArray<IoRequest> requestInSlot;
    private final Integer[] slotIds;
    private final ArrayBlockingQueue<Integer> freeSlots;
    private final Memory events;
    private final ByteBuffer eventView;
    private final Memory reaperTimeout;
    private final ThreadLocal<Memory> batchPointers;
    // Requests started by completion callbacks while the reaper handles events, waiting to be
    // submitted as a group. Touched by the reaper thread only.
    private final Memory deferredPointers;
    private int deferredCount;
    private boolean deferring;
    private volatile boolean running = true;
    // Reads in the reader's thread with a deadline; null where the library cannot be loaded.
    private final UringReads uringReads;
    private BiConsumer<IoRequest, Throwable> completion;
    private Thread reaper;

    private AioEngine(String path, int fd, long context, int slotCount, UringReads uringReads) {
        this.path = path;
        this.fd = fd;
        this.blockDevice = io.flashchunk.device.DevicePaths.isBlockDevice(java.nio.file.Path.of(path));
        this.context = context;
        this.slotCount = slotCount;
        this.iocbMemory = new Memory((long) slotCount * IOCB_SIZE);
        this.iocbMemory.clear();
        this.iocbs = iocbMemory.getByteBuffer(0, iocbMemory.size()).order(ByteOrder.nativeOrder());
        this.iocbPointerCells = new Memory((long) slotCount * Long.BYTES);
        this.requestInSlot = new AtomicReferenceArray<>(slotCount);
        this.slotIds = new Integer[slotCount];
        this.freeSlots = new ArrayBlockingQueue<>(slotCount);
        for (int slot = 0; slot < slotCount; slot++) {
            slotIds[slot] = slot;
            iocbs.putLong(slot * IOCB_SIZE + IOCB_DATA, slot);
            iocbs.putInt(slot * IOCB_SIZE + IOCB_FD, fd);
            iocbPointerCells.setLong((long) slot * Long.BYTES, iocbAddress(slot));
            freeSlots.add(slotIds[slot]);
        }
        this.events = new Memory((long) slotCount * EVENT_SIZE);
        this.eventView = events.getByteBuffer(0, events.size()).order(ByteOrder.nativeOrder());
        this.reaperTimeout = new Memory(16);
        reaperTimeout.setLong(0, 0);
        reaperTimeout.setLong(8, REAPER_WAKEUP_NANOS);
        this.batchPointers = ThreadLocal.withInitial(() -> new Memory((long) MAX_BATCH * Long.BYTES));
        this.deferredPointers = new Memory((long) slotCount * Long.BYTES);
        this.uringReads = uringReads;
    }

    static boolean available() {
        return LibAio.available();
    }

    static String unavailableReason() {
        return LibAio.unavailableReason();
    }

    /** {@code rings}: reads in readers' threads through io_uring ({@link #readWithin}); the kernel must give one. */
    static AioEngine open(String path, int queueDepth, boolean readOnly, boolean rings) throws DeviceOpenException {
        int fd;
        try {
            fd = LibC.open(path, (readOnly ? LibC.O_RDONLY : LibC.O_RDWR) | LibC.O_DIRECT | LibC.O_CLOEXEC);
        } catch (LastErrorException e) {
            throw openFailure(path, e.getErrorCode(), readOnly);
        }
        Memory contextCell = new Memory(Long.BYTES);
        contextCell.setLong(0, 0);
        int rc = LibAio.io_setup(queueDepth, Pointer.nativeValue(contextCell));
        if (rc < 0) {
            LibC.close(fd);
            throw new DeviceOpenException("io_setup(" + queueDepth + ") for " + path + " failed: " + Errno.describe(-rc)
                    + "; lower the queue depth or raise /proc/sys/fs/aio-max-nr");
        }
        UringReads uringReads = null;
        if (rings) {
            String refused = UringReads.probe(fd);
            if (refused != null) {
                LibAio.io_destroy(contextCell.getLong(0));
                LibC.close(fd);
                throw new DeviceOpenException("engine io_uring was asked for " + path + " but the kernel gives no io_uring "
                        + "ring: " + refused + "; set the engine to libaio");
            }
            // As many rings as reads the cache lets wait on the device at once (two a queue slot).
            uringReads = new UringReads(path, fd, 2 * queueDepth);
        }
        return new AioEngine(path, fd, contextCell.getLong(0), queueDepth, uringReads);
    }

    static DeviceOpenException openFailure(String path, int errno, boolean readOnly) {
        if (Errno.isPermissionDenied(errno)) {
            return new DeviceOpenException("no permission to open " + path + (readOnly ? " for reading: " : " for reading and writing: ")
                    + Errno.describe(errno));
        }
        if (errno == Errno.ENOENT) {
            return new DeviceOpenException("device path " + path + " does not exist");
        }
        if (errno == Errno.EINVAL) {
            return new DeviceOpenException("cannot open " + path + " with O_DIRECT: " + Errno.describe(errno)
                    + "; use a block device or a file system that supports direct I/O");
        }
        return new DeviceOpenException("cannot open " + path + ": " + Errno.describe(errno));
    }

    @Override
    public void start(BiConsumer<IoRequest, Throwable> sink) {
        this.completion = sink;
        reaper = new Thread(this::reap, "flashchunk-aio-reaper " + path);
        reaper.setDaemon(true);
        reaper.start();
    }

    @Override
    public void dispatch(IoRequest[] batch, int count) {
        if (deferring && Thread.currentThread() == reaper) {
            // Each request holds a queue slot, so at most slotCount are deferred at once.
            for (int i = 0; i < count; i++) {
                deferredPointers.setLong((long) deferredCount++ * Long.BYTES, iocbAddress(prepare(batch[i])));
            }
            return;
        }
        if (count == 1) {
            int slot = prepare(batch[0]);
            submit(iocbPointerCells, (long) slot * Long.BYTES, 1);
            return;
        }
        Memory pointers = batchPointers.get();
        for (int start = 0; start < count; start += MAX_BATCH) {
            int n = Math.min(MAX_BATCH, count - start);
            for (int i = 0; i < n; i++) {
                pointers.setLong((long) i * Long.BYTES, iocbAddress(prepare(batch[start + i])));
            }
            submit(pointers, 0, n);
        }
    }

    private int prepare(IoRequest request) {
        Integer slot = freeSlots.poll();
        if (slot == null) {
            // The device grants at most queueDepth slots and frees ours before its own.
            throw new IllegalStateException("no free iocb for " + path + ": queue-depth accounting is broken");
        }
        int base = slot * IOCB_SIZE;
        requestInSlot.set(slot, request);
        iocbs.putShort(base + IOCB_OPCODE, request.op() == IoOp.READ ? IO_CMD_PREAD : IO_CMD_PWRITE);
        iocbs.putLong(base + IOCB_BUF, request.address());
        iocbs.putLong(base + IOCB_NBYTES, request.bytes());
        iocbs.putLong(base + IOCB_OFFSET, request.deviceOffset());
        return slot;
    }

    /** Submits the {@code count} iocbs listed in {@code cells} from {@code offset}; fails what the kernel refuses. */
    private void submit(Memory cells, long offset, int count) {
        int done = 0;
        while (done < count) {
            int rc = LibAio.io_submit(context, count - done, Pointer.nativeValue(cells) + offset + (long) done * Long.BYTES);
            if (rc == -Errno.EINTR) {
                continue;
            }
            if (rc <= 0) {
                int errno = rc == 0 ? Errno.EAGAIN : -rc;
                for (int i = done; i < count; i++) {
                    long iocb = cells.getLong(offset + (long) i * Long.BYTES);
                    int slot = (int) ((iocb - Pointer.nativeValue(iocbMemory)) / IOCB_SIZE);
                    finish(slot, -errno, "io_submit: ");
                }
                return;
            }
            done += rc;
        }
    }

    private void reap() {
        while (running) {
            int n = LibAio.io_getevents(context, 1, slotCount, Pointer.nativeValue(events), Pointer.nativeValue(reaperTimeout));
            if (n < 0) {
                if (n != -Errno.EINTR) {
                    LOG.error("io_getevents on {} failed: {}", path, Errno.describe(-n));
                    sleepBriefly();
                }
                continue;
            }
            deferring = true;
            try {
                for (int i = 0; i < n; i++) {
                    int slot = (int) eventView.getLong(i * EVENT_SIZE + EVENT_DATA);
                    long result = eventView.getLong(i * EVENT_SIZE + EVENT_RES);
                    finish(slot, result, "");
                    if (deferredCount >= DEFERRED_SUBMIT_BATCH) {
                        submitDeferred();
                    }
                }
            } finally {
                deferring = false;
            }
            submitDeferred();
        }
    }

    private void submitDeferred() {
        int count = deferredCount;
        deferredCount = 0;
        // A refused submission completes requests, whose callbacks may start new ones: those go
        // straight to io_submit rather than over the pointers still being submitted here.
        boolean wasDeferring = deferring;
        deferring = false;
        try {
            for (int start = 0; start < count; start += MAX_BATCH) {
                submit(deferredPointers, (long) start * Long.BYTES, Math.min(MAX_BATCH, count - start));
            }
        } finally {
            deferring = wasDeferring;
        }
    }

    /** Frees the slot, then reports the outcome: result is bytes moved or a negative errno. */
    private void finish(int slot, long result, String where) {
        IoRequest request = requestInSlot.getAndSet(slot, null);
        freeSlots.add(slotIds[slot]);
        Throwable failure = null;
        if (result < 0) {
            failure = new DeviceIoException(request, path, (int) -result, where + Errno.describe((int) -result));
        } else if (result != request.bytes()) {
            failure = new DeviceIoException(request, path, 0, "short " + request.op().verb() + ": " + result + " of "
                    + request.bytes() + " bytes (past the end of the file?)");
        }
        completion.accept(request, failure);
    }

    private static void sleepBriefly() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private long iocbAddress(int slot) {
        return Pointer.nativeValue(iocbMemory) + (long) slot * IOCB_SIZE;
    }

    @Override
    public boolean readsInCallerThread() {
        return true;
    }

    /** pread(2) on the O_DIRECT descriptor: the kernel wakes this thread itself when the read ends. */
    @Override
    public void readInCallerThread(long offset, int length, long address) throws java.io.IOException {
        long done = 0;
        while (done < length) {
            long moved;
            try {
                moved = LibC.pread(fd, new Pointer(address + done), length - done, offset + done);
            } catch (LastErrorException e) {
                if (e.getErrorCode() == Errno.EINTR) {
                    continue;
                }
                throw new java.io.IOException("read of " + length + " bytes at offset " + offset + " on " + path
                        + " failed: " + Errno.describe(e.getErrorCode()), e);
            }
            if (moved <= 0) {
                throw new java.io.IOException("short read at offset " + offset + " on " + path + ": " + done + " of "
                        + length + " bytes");
            }
            done += moved;
        }
    }

    UringReads uringReads() {
        return uringReads;
    }

    @Override
    public boolean readWithin(IoRequest request, long timeoutNanos, BiConsumer<IoRequest, Throwable> done) {
        return uringReads != null && uringReads.read(request, timeoutNanos, done);
    }

    @Override
    public boolean discard(long offset, long length) throws java.io.IOException {
        try {
            if (blockDevice) {
                LibC.ioctl(fd, LibC.BLKDISCARD, new long[] {offset, length});
            } else {
                LibC.fallocate(fd, LibC.FALLOC_FL_PUNCH_HOLE | LibC.FALLOC_FL_KEEP_SIZE, offset, length);
            }
            return true;
        } catch (LastErrorException e) {
            if (e.getErrorCode() == Errno.EOPNOTSUPP) {
                return false; // the file system, or a block device without discard: nothing changed
            }
            throw new java.io.IOException((blockDevice ? "BLKDISCARD" : "punching a hole") + " of " + length
                    + " bytes at offset " + offset + " on " + path + " failed: " + Errno.describe(e.getErrorCode()), e);
        }
    }

    @Override
    public void flush() throws java.io.IOException {
        try {
            LibC.fdatasync(fd);
        } catch (LastErrorException e) {
            throw new java.io.IOException("fdatasync of " + path + " failed: " + Errno.describe(e.getErrorCode()), e);
        }
    }

    @Override
    public void close() {
        running = false;
        if (reaper != null) {
            try {
                reaper.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (uringReads != null) {
            uringReads.close(); // close() comes only after every request ended (see release)
        }
        int rc = LibAio.io_destroy(context);
        if (rc < 0) {
            LOG.warn("io_destroy for {} failed: {}", path, Errno.describe(-rc));
        }
        LibC.close(fd);
    }
}

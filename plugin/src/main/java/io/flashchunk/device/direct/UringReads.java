package io.flashchunk.device.direct;

import io.flashchunk.device.DeviceIoException;
import io.flashchunk.device.Errno;
import io.flashchunk.device.IoRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads of one device in the threads that want the bytes, each through an io_uring ring of the
 * device's descriptor: one system call submits the read and waits for it, and the kernel wakes the
 * reading thread itself. A read through the device's queue is two thread wake-ups more (the
 * completion thread's, then the reader's), which the hit benchmark's profile puts at about half of
 * a read's CPU. Unlike a blocking pread, such a read can be given up at a deadline: it stays in
 * flight with its ring and buffer, and this class's thread reports it when it ends.
 *
 * <p>Rings are made as readers need them, at most {@code maxRings}, and reused; a ring holds one
 * read, and is back in the pool before its read is reported. Once a read is submitted its outcome is
 * reported exactly once, whatever fails after: a buffer is never let go of while the kernel may still
 * write into it. Thread-safe.
 */
final class UringReads {
    private static final Logger LOG = LoggerFactory.getLogger(UringReads.class);
    // How long the late-read thread waits on one ring when none of them has ended.
    private static final long LATE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    // After the kernel refused a ring, how long before another is tried.
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String path;
    private final int fd;
    private final int maxRings;
    private final ConcurrentLinkedQueue<Long> idle = new ConcurrentLinkedQueue<>();
    private final AtomicInteger made = new AtomicInteger();
    private final AtomicLong refusedAt = new AtomicLong(Long.MIN_VALUE);
    private final LateReads late;
    private volatile String refusal;

    /** Why the library cannot be used, or null. */
    static String unavailableReason() {
        return LibFlashchunkUring.unavailableReason();
    }

    /** Why the kernel gives no ring over {@code fd} (the errno, described), or null when it does. */
    static String probe(int fd) {
        int[] error = new int[1];
        long ring = LibFlashchunkUring.fc_ring_open(fd, error);
        if (ring == 0) {
            if (error[0] == Errno.EOPNOTSUPP) {
                return "it has no IORING_FEAT_EXT_ARG: Linux 5.11 or later is needed";
            }
            return Errno.describe(error[0]) + (error[0] == Errno.EPERM ? " (kernel.io_uring_disabled, or a seccomp filter)" : "");
        }
        LibFlashchunkUring.fc_ring_close(ring);
        return null;
    }

    /** Rings over {@code fd}; its thread for reads past their deadline starts now. */
    UringReads(String path, int fd, int maxRings) {
        this.path = path;
        this.fd = fd;
        this.maxRings = maxRings;
        this.late = new LateReads(maxRings);
    }

    /**
     * Reads {@code request} in this thread and waits at most {@code timeoutNanos}. Its outcome goes to
     * {@code done} exactly once: in this thread when the read ended in time, else from this class's
     * thread when it ends. False, and nothing reported: no ring could be had (all in use, or the kernel
     * refused one); the caller reads another way.
     */
    boolean read(IoRequest request, long timeoutNanos, BiConsumer<IoRequest, Throwable> done) {
        long ring = takeRing();
        if (ring == 0) {
            return false;
        }
        int rc = LibFlashchunkUring.fc_ring_read(ring, request.address(), request.bytes(), request.deviceOffset(),
                timeoutNanos);
        if (rc == LibFlashchunkUring.IN_FLIGHT) {
            try {
                late.add(ring, request, done);
                return true;
            } catch (Throwable e) {
                // Not handed over (no memory for it, say): wait for the read here, however long it takes,
                // rather than let go of a buffer the kernel may still write into.
                rc = LibFlashchunkUring.fc_ring_reap(ring, -1);
            }
        }
        idle.add(ring);
        done.accept(request, outcome(request, rc));
        return true;
    }

    private long takeRing() {
        Long ring = idle.poll();
        if (ring != null) {
            return ring;
        }
        if (refusal != null && System.nanoTime() - refusedAt.get() < RETRY_NANOS) {
            return 0;
        }
        if (made.incrementAndGet() > maxRings) {
            made.decrementAndGet();
            return 0;
        }
        int[] error = new int[1];
        long opened = LibFlashchunkUring.fc_ring_open(fd, error);
        if (opened == 0) {
            made.decrementAndGet();
            refusedAt.set(System.nanoTime());
            String reason = Errno.describe(error[0]);
            if (refusal == null) {
                LOG.warn("flash device {}: the kernel gives no more io_uring rings ({}): hits that find none free read "
                        + "through the device's queue, and another is tried each second", path, reason);
            }
            refusal = reason;
            return 0;
        }
        if (refusal != null) {
            refusal = null;
            LOG.info("flash device {}: the kernel gives io_uring rings again", path);
        }
        return opened;
    }

    private Throwable outcome(IoRequest request, int rc) {
        if (rc < 0) {
            return new DeviceIoException(request, path, -rc, "io_uring read: " + Errno.describe(-rc));
        }
        if (rc != request.bytes()) {
            return new DeviceIoException(request, path, 0, "short read: " + rc + " of " + request.bytes()
                    + " bytes (past the end of the file?)");
        }
        return null;
    }

    /** Rings made so far (each is kept and reused). */
    int ringsMade() {
        return made.get();
    }

    /** Reads past their deadline still in flight. */
    int pending() {
        return late.pending();
    }

    /** Why the kernel refused the last ring asked for, or null when it gave it. */
    String refusal() {
        return refusal;
    }

    /** Frees every idle ring and stops the late-read thread; called once every read has ended. */
    void close() {
        late.stop();
        for (Long ring = idle.poll(); ring != null; ring = idle.poll()) {
            LibFlashchunkUring.fc_ring_close(ring);
        }
        int pending = late.pending();
        if (pending > 0) {
            LOG.warn("flash device {}: {} io_uring read(s) still in flight at close: their rings are left open", path,
                    pending);
        }
    }

    /**
     * Reads given up at their deadline, reported when they end by one thread: each pass looks at every
     * one, and when none has ended waits a little on one of them in turn.
     */
    private final class LateReads implements Runnable {
        private final List<Late> pending;
        private final Thread thread;
        private boolean stopped;

        private final class Late {
            private final long ring;
            private final IoRequest request;
            private final BiConsumer<IoRequest, Throwable> done;

            Late(long ring, IoRequest request, BiConsumer<IoRequest, Throwable> done) {
                this.ring = ring;
                this.request = request;
                this.done = done;
            }
        }

        LateReads(int capacity) {
            this.pending = new ArrayList<>(capacity); // one a ring: adding never grows it
            this.thread = new Thread(this, "flashchunk-uring-late-reads " + path);
            thread.setDaemon(true);
            thread.start();
        }

        synchronized void add(long ring, IoRequest request, BiConsumer<IoRequest, Throwable> done) {
            pending.add(new Late(ring, request, done));
            notifyAll();
        }

        synchronized int pending() {
            return pending.size();
        }

        synchronized void stop() {
            stopped = true;
            notifyAll();
        }

        @Override
        public void run() {
            int next = 0;
            while (true) {
                List<Late> reads;
                synchronized (this) {
                    while (pending.isEmpty() && !stopped) {
                        try {
                            wait();
                        } catch (InterruptedException e) {
                            // only stop() ends this thread
                        }
                    }
                    if (stopped) {
                        return;
                    }
                    reads = new ArrayList<>(pending);
                }
                try {
                    boolean ended = false;
                    for (Late read : reads) {
                        ended |= reapIfEnded(read, 0);
                    }
                    if (!ended) {
                        next = (next + 1) % reads.size();
                        long started = System.nanoTime();
                        if (!reapIfEnded(reads.get(next), LATE_WAIT_NANOS)
                                && System.nanoTime() - started < LATE_WAIT_NANOS / 2) {
                            // The wait itself failed at once (it reads as "still in flight"): do not spin.
                            Thread.sleep(1);
                        }
                    }
                } catch (Throwable e) {
                    LOG.error("flash device {}: reaping io_uring reads past their deadline: {}", path, e.toString());
                }
            }
        }

        /** Reports {@code read} if it ended within {@code waitNanos}; whether it did. */
        private boolean reapIfEnded(Late read, long waitNanos) {
            int rc = LibFlashchunkUring.fc_ring_reap(read.ring, waitNanos);
            if (rc == LibFlashchunkUring.IN_FLIGHT) {
                return false;
            }
            synchronized (this) {
                pending.remove(read);
            }
            idle.add(read.ring);
            read.done.accept(read.request, outcome(read.request, rc));
            return true;
        }
    }
}

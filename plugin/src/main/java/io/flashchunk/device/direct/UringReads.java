package io.flashchunk.device.direct;

import io.flashchunk.device.DeviceIoException;
import io.flashchunk.device.Errno;
import io.flashchunk.device.IoRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads of one device in the threads that want the bytes, each through an io_uring ring of the
 * device's descriptor: one system call submits the read and waits for it, and the kernel wakes the
 * reading thread itself. A read through the device's queue is two thread wake-ups more (the
 * completion thread's, then the reader's), which the hit benchmark's profile puts at about half of
 * a read's CPU. Unlike a blocking pread, such a read can be given up at a deadline: it stays in
 * flight with its ring and buffer, and a thread of this class reports it when it ends.
 *
 * <p>Rings are made as readers need them, at most {@code maxRings}, and reused; a ring holds one read.
 * Thread-safe.
 */
final class UringReads {
    private static final Logger LOG = LoggerFactory.getLogger(UringReads.class);
    // How long the late-read thread waits on one ring before it looks at the next.
    private static final long LATE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final String path;
    private final int fd;
    private final int maxRings;
    private final ConcurrentLinkedQueue<Long> idle = new ConcurrentLinkedQueue<>();
    private final AtomicInteger made = new AtomicInteger();
    private final LateReads late = new LateReads();
    private volatile String failure;

    /** Why the library cannot be loaded, or null. */
    static String unavailableReason() {
        return LibFlashchunkUring.loaded() ? null : LibFlashchunkUring.unavailableReason();
    }

    /** Why the kernel gives no ring over {@code fd} (the errno, described), or null when it does. */
    static String probe(int fd) {
        int[] error = new int[1];
        long ring = LibFlashchunkUring.fc_ring_open(fd, error);
        if (ring == 0) {
            return Errno.describe(error[0]);
        }
        LibFlashchunkUring.fc_ring_close(ring);
        return null;
    }

    UringReads(String path, int fd, int maxRings) {
        this.path = path;
        this.fd = fd;
        this.maxRings = maxRings;
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
            late.add(ring, request, done);
            return true;
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
        if (failure != null || made.incrementAndGet() > maxRings) {
            if (failure == null) {
                made.decrementAndGet();
            }
            return 0;
        }
        int[] error = new int[1];
        long made = LibFlashchunkUring.fc_ring_open(fd, error);
        if (made == 0) {
            this.made.decrementAndGet();
            failure = Errno.describe(error[0]);
            LOG.warn("flash device {}: the kernel gives no io_uring ring ({}): hits read through the device's queue",
                    path, failure);
        }
        return made;
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

    /** Why rings cannot be had, or null. */
    String failure() {
        return failure;
    }

    /** Frees every ring; called once every read has ended (a ring with one in flight must stay). */
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

    /** Reads given up at their deadline: waited for in turn by one thread, started when the first comes. */
    private final class LateReads implements Runnable {
        private final List<Late> pending = new ArrayList<>();
        private Thread thread;
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

        synchronized void add(long ring, IoRequest request, BiConsumer<IoRequest, Throwable> done) {
            pending.add(new Late(ring, request, done));
            if (thread == null && !stopped) {
                thread = new Thread(this, "flashchunk-uring-late-reads " + path);
                thread.setDaemon(true);
                thread.start();
            }
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
                Late read;
                synchronized (this) {
                    while (pending.isEmpty() && !stopped) {
                        try {
                            wait();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                    if (stopped) {
                        return;
                    }
                    next = next % pending.size();
                    read = pending.get(next);
                }
                int rc = LibFlashchunkUring.fc_ring_reap(read.ring, LATE_WAIT_NANOS);
                if (rc == LibFlashchunkUring.IN_FLIGHT) {
                    next++;
                    continue;
                }
                synchronized (this) {
                    pending.remove(read);
                }
                idle.add(read.ring);
                read.done.accept(read.request, outcome(read.request, rc));
            }
        }
    }
}

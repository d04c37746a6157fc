/*
 * Reads for the flash chunk cache through io_uring, each in the thread that needs the bytes: one
 * system call submits the read and waits for it, and the kernel wakes that thread itself, with no
 * completion thread to hand the result over (the hand-offs are about half the CPU of a hit read
 * through libaio's queue; docs/cache-benchmark.md). A read not done by its deadline is left in
 * flight: its ring stays busy, and its buffer the kernel's, until fc_ring_reap sees it end.
 *
 * One ring serves one read at a time; the Java side (io.flashchunk.device.direct.UringReads) keeps a
 * pool of them. liburing is linked in statically, so the library needs only the kernel's io_uring.
 */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flashchunk_uring.h"

struct fc_ring {
    struct io_uring ring;
    int busy; /* a read is in flight: submitted, its completion not yet seen */
};

fc_ring *fc_ring_open(int fd, int *error)
{
    if (fd < 0) {
        *error = EBADF; /* io_uring would take -1 for an empty slot */
        return NULL;
    }
    fc_ring *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        *error = ENOMEM;
        return NULL;
    }
    /* Two entries: one read, and room for the timeout liburing adds on kernels without EXT_ARG. */
    int rc = io_uring_queue_init(2, &r->ring, 0);
    if (rc < 0) {
        free(r);
        *error = -rc;
        return NULL;
    }
    /*
     * Waits with a deadline need IORING_FEAT_EXT_ARG (Linux 5.11): without it liburing queues a timeout
     * request of its own beside the read, whose completions it must tell from the read's, and a ring
     * of one read at a time is not built for that. IORING_OP_READ (5.6) is then there too.
     */
    if (!(r->ring.features & IORING_FEAT_EXT_ARG)) {
        io_uring_queue_exit(&r->ring);
        free(r);
        *error = EOPNOTSUPP;
        return NULL;
    }
    struct io_uring_probe *probe = io_uring_get_probe_ring(&r->ring);
    int reads = probe != NULL && io_uring_opcode_supported(probe, IORING_OP_READ);
    io_uring_free_probe(probe);
    if (!reads) {
        io_uring_queue_exit(&r->ring);
        free(r);
        *error = EOPNOTSUPP;
        return NULL;
    }
    rc = io_uring_register_files(&r->ring, &fd, 1);
    if (rc < 0) {
        io_uring_queue_exit(&r->ring);
        free(r);
        *error = -rc;
        return NULL;
    }
    *error = 0;
    return r;
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/*
 * Submits what the ring holds (the read, unless the kernel took it already) and waits for the read's
 * completion until timeout_ns from now (negative: no limit). Its result, or -ETIME: still in flight.
 * A wait cut short by a signal (a profiler's, say) waits out the rest of the time: io_uring_enter then
 * returns what it submitted, with no completion, or -EINTR. Any other failure of the wait is taken for
 * "still in flight": the ring stays busy, and a later fc_ring_reap submits and waits again, so a read
 * is never let go of while its buffer may still be the kernel's.
 */
static int wait_read(fc_ring *r, long long timeout_ns)
{
    long long deadline = timeout_ns < 0 ? 0 : now_ns() + timeout_ns;
    for (;;) {
        struct io_uring_cqe *cqe = NULL;
        struct __kernel_timespec ts = { 0, 0 };
        if (timeout_ns >= 0) {
            long long left = deadline - now_ns();
            if (left < 0) {
                left = 0;
            }
            ts.tv_sec = left / 1000000000LL;
            ts.tv_nsec = left % 1000000000LL;
        }
        int rc = io_uring_submit_and_wait_timeout(&r->ring, &cqe, 1, timeout_ns < 0 ? NULL : &ts, NULL);
        if (cqe != NULL && rc >= 0) {
            /* A read's own -ETIME (none is known) must not pass for "still in flight". */
            int res = cqe->res == -ETIME ? -EIO : cqe->res;
            io_uring_cqe_seen(&r->ring, cqe);
            r->busy = 0;
            return res;
        }
        int cut_short = rc == -EINTR || (rc >= 0 && cqe == NULL);
        if (cut_short && (timeout_ns < 0 || now_ns() < deadline)) {
            continue;
        }
        return -ETIME;
    }
}

int fc_ring_read(fc_ring *r, void *buffer, unsigned length, unsigned long long offset, long long timeout_ns)
{
    if (r->busy) {
        return -EBUSY;
    }
    struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
    if (sqe == NULL) {
        return -EBUSY;
    }
    io_uring_prep_read(sqe, 0, buffer, length, offset);
    io_uring_sqe_set_data64(sqe, 1); /* the read's own mark, whatever the slot held before */
    sqe->flags |= IOSQE_FIXED_FILE;
    r->busy = 1;
    return wait_read(r, timeout_ns);
}

int fc_ring_reap(fc_ring *r, long long timeout_ns)
{
    if (!r->busy) {
        return -EALREADY;
    }
    return wait_read(r, timeout_ns);
}

int fc_ring_busy(const fc_ring *r)
{
    return r->busy;
}

int fc_ring_close(fc_ring *r)
{
    if (r == NULL) {
        return 0;
    }
    if (r->busy) {
        return -EBUSY; /* its read could still write into its buffer: the ring stays */
    }
    io_uring_queue_exit(&r->ring);
    free(r);
    return 0;
}

int fc_abi_version(void)
{
    return FC_ABI_VERSION;
}

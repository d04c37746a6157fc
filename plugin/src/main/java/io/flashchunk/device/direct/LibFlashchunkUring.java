package io.flashchunk.device.direct;

import io.flashchunk.device.NativeBindings;

/**
 * native/'s libflashchunk_uring (io_uring reads, liburing linked in), bound by JNA direct mapping;
 * the jar carries it under {@code linux-x86-64/}, where JNA finds it. Pointers are passed as longs;
 * like the calls they wrap, these return a negative errno on failure.
 */
final class LibFlashchunkUring {
    static final String LIBRARY = "flashchunk_uring";
    /** fc_ring_read's and fc_ring_reap's "still in flight". */
    static final int IN_FLIGHT = -62; // -ETIME
    private static final Throwable LOAD_FAILURE = NativeBindings.register(LibFlashchunkUring.class, LIBRARY);

    private LibFlashchunkUring() {
    }

    static boolean loaded() {
        return LOAD_FAILURE == null;
    }

    /** Why the library did not load, or null when it did. */
    static String unavailableReason() {
        return NativeBindings.unavailableReason("lib" + LIBRARY + ".so", LOAD_FAILURE);
    }

    /** {@code fc_ring *fc_ring_open(int fd, int *error)}: 0 with {@code error[0]} an errno when it fails. */
    static native long fc_ring_open(int fd, int[] error);

    /** {@code int fc_ring_read(fc_ring *r, void *buffer, unsigned length, unsigned long long offset, long long timeout_ns)} */
    static native int fc_ring_read(long ring, long buffer, int length, long offset, long timeoutNanos);

    /** {@code int fc_ring_reap(fc_ring *r, long long timeout_ns)} */
    static native int fc_ring_reap(long ring, long timeoutNanos);

    /** {@code void fc_ring_close(fc_ring *r)} */
    static native void fc_ring_close(long ring);
}

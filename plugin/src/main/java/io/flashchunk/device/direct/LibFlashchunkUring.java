package io.flashchunk.device.direct;

import io.flashchunk.device.NativeBindings;

/**
 * native/'s libflashchunk_uring (io_uring reads, liburing linked in), bound by JNA direct mapping;
 * the jar carries it under JNA's directory for the platform ({@code linux-x86-64/}), where JNA finds
 * it. Pointers are passed as longs; like the calls they wrap, these return a negative errno on failure.
 */
final class LibFlashchunkUring {
    static final String LIBRARY = "flashchunk_uring";
    /** The library's FC_ABI_VERSION this binding is written for. */
    static final int ABI_VERSION = 1;
    /** fc_ring_read's and fc_ring_reap's "still in flight". */
    static final int IN_FLIGHT = -62; // -ETIME
    private static final String UNAVAILABLE = load();

    private LibFlashchunkUring() {
    }

    private static String load() {
        Throwable failure = NativeBindings.register(LibFlashchunkUring.class, LIBRARY);
        if (failure != null) {
            return NativeBindings.unavailableReason("lib" + LIBRARY + ".so", failure);
        }
        int version = fc_abi_version();
        // Another copy found first (JNA looks in the system's paths before the jar): not ours to call.
        return version == ABI_VERSION ? null
                : "lib" + LIBRARY + ".so of another version was loaded (ABI " + version + ", expected " + ABI_VERSION
                        + "): remove the other copy from the library path";
    }

    static boolean loaded() {
        return UNAVAILABLE == null;
    }

    /** Why the library cannot be used, or null when it can. */
    static String unavailableReason() {
        return UNAVAILABLE;
    }

    /** {@code int fc_abi_version(void)} */
    static native int fc_abi_version();

    /** {@code fc_ring *fc_ring_open(int fd, int *error)}: 0 with {@code error[0]} an errno when it fails. */
    static native long fc_ring_open(int fd, int[] error);

    /** {@code int fc_ring_read(fc_ring *r, void *buffer, unsigned length, unsigned long long offset, long long timeout_ns)} */
    static native int fc_ring_read(long ring, long buffer, int length, long offset, long timeoutNanos);

    /** {@code int fc_ring_reap(fc_ring *r, long long timeout_ns)} */
    static native int fc_ring_reap(long ring, long timeoutNanos);

    /** {@code int fc_ring_close(fc_ring *r)}: -EBUSY, and nothing freed, while a read is in flight. */
    static native int fc_ring_close(long ring);
}

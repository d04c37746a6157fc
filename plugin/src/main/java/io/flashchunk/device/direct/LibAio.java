package io.flashchunk.device.direct;

import io.flashchunk.device.NativeBindings;

/**
 * Linux native AIO through libaio.so.1, bound by JNA direct mapping. Pointers are passed as longs.
 * The library is looked up once per JVM; {@code -Dflashchunk.libaio.library} names another file.
 * Like the kernel calls they wrap, these return a negative errno on failure.
 */
final class LibAio {
    static final String LIBRARY = System.getProperty("flashchunk.libaio.library", "libaio.so.1");
    private static final Throwable LOAD_FAILURE = NativeBindings.register(LibAio.class, LIBRARY);

    private LibAio() {
    }

    static boolean available() {
        return LOAD_FAILURE == null;
    }

    /** Why the library did not load, or null when it did. */
    static String unavailableReason() {
        return NativeBindings.unavailableReason(LIBRARY, LOAD_FAILURE);
    }

    /** {@code int io_setup(int maxevents, io_context_t *ctxp)} */
    static native int io_setup(int maxEvents, long contextOut);

    /** {@code int io_destroy(io_context_t ctx)} */
    static native int io_destroy(long context);

    /** {@code int io_submit(io_context_t ctx, long nr, struct iocb *ios[])} */
    static native int io_submit(long context, long count, long iocbPointers);

    /** {@code int io_getevents(io_context_t ctx, long min_nr, long nr, struct io_event *events, struct timespec *timeout)} */
    static native int io_getevents(long context, long minCount, long maxCount, long events, long timeout);
}

package io.flashchunk.device.direct;

import io.flashchunk.device.IoRequest;
import java.util.function.BiConsumer;

/** Moves the bytes of a {@link DirectIoDevice}; one implementation per {@code engine} setting. */
interface DirectIoEngine {
    /** Starts completion handling; outcomes go to {@code completion} (failure null on success). */
    void start(BiConsumer<IoRequest, Throwable> completion);

    /** Starts requests that each hold a queue slot; see {@code QueuedBlockDevice#dispatch}. */
    void dispatch(IoRequest[] batch, int count);

    /** Whether {@link #readInCallerThread} works (it needs a descriptor that no thread interrupt closes). */
    default boolean readsInCallerThread() {
        return false;
    }

    /** A blocking read in the calling thread; see {@code BlockDevice#readNow}. */
    default void readInCallerThread(long offset, int length, long address) throws java.io.IOException {
        throw new IllegalStateException("this engine reads through its queue only");
    }

    /**
     * Reads {@code request} in this thread and waits at most {@code timeoutNanos}; its outcome goes to
     * {@code done} once, now or when a read past its deadline ends. False, nothing reported: not here.
     */
    default boolean readWithin(IoRequest request, long timeoutNanos, BiConsumer<IoRequest, Throwable> done) {
        return false;
    }

    /** Discards {@code length} bytes at {@code offset} ({@link io.flashchunk.device.BlockDevice#discard}); false: cannot. */
    default boolean discard(long offset, long length) throws java.io.IOException {
        return false;
    }

    /** Makes completed writes durable. */
    void flush() throws java.io.IOException;

    /** Stops threads and releases the descriptor; called once, after all requests completed. */
    void close();
}

package io.flashchunk.cache;

/** What tests outside this package may see of the cache's read buffers. */
public final class ReadBuffers {
    private ReadBuffers() {
    }

    /** Read buffers the cache handed out with hits and has not had back: 0 once every reader let go. */
    public static long outstanding(FlashCache cache) {
        return ((SegmentFlashCache) cache).engine().reader().outstandingBuffers();
    }
}

package io.flashchunk.cache.compact;

/** A record read from flash is not the one the reader expected: the read is a miss, never served. */
public final class RecordMismatchException extends Exception {
    public RecordMismatchException(String message) {
        super(message);
    }
}

package io.flashchunk.cache.format;

/**
 * A record read from flash is not the one the reader expected: the read is a miss, never served.
 * Either another record is there (a partial key of the index matched another chunk's, or the reader
 * expected a shorter chunk), or the bytes are {@link #damaged()}: a checksum failed.
 */
public final class RecordMismatchException extends Exception {
    private final boolean damaged;

    public RecordMismatchException(String message) {
        this(message, false);
    }

    public RecordMismatchException(String message, boolean damaged) {
        super(message);
        this.damaged = damaged;
    }

    /** Whether a checksum failed (the bytes on flash are not what was written), rather than another record being there. */
    public boolean damaged() {
        return damaged;
    }
}

package io.flashchunk.cache.format;

/** A superblock or checkpoint that must not be trusted; the message says what is wrong and where. */
public final class CheckpointFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Nothing was ever written there (magic 0): a new cache's areas, or one a crash left unwritten. */
    private final boolean emptyArea;

    public CheckpointFormatException(String message) {
        this(message, false);
    }

    private CheckpointFormatException(String message, boolean emptyArea) {
        super(message);
        this.emptyArea = emptyArea;
    }

    /** A checkpoint area that holds nothing at all: not a problem, only nothing to recover. */
    public static CheckpointFormatException emptyArea(String message) {
        return new CheckpointFormatException(message, true);
    }

    /** Whether the area held nothing at all ({@link #emptyArea}) rather than something untrustworthy. */
    public boolean emptyArea() {
        return emptyArea;
    }
}

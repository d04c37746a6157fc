package io.flashchunk.cache.format;

/** A superblock or checkpoint that must not be trusted; the message says what is wrong and where. */
public final class CheckpointFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    public CheckpointFormatException(String message) {
        super(message);
    }
}

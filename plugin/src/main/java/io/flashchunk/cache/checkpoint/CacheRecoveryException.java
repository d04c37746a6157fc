package io.flashchunk.cache.checkpoint;

import java.io.IOException;

/** Strict mode: the devices hold no cache this configuration may recover, and formatting was not allowed. */
public final class CacheRecoveryException extends IOException {
    private static final long serialVersionUID = 1L;

    public CacheRecoveryException(String message) {
        super(message);
    }
}

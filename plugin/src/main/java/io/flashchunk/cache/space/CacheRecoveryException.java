package io.flashchunk.cache.space;

import java.io.IOException;

/**
 * The devices hold no cache this configuration may recover, and formatting them was not allowed: by
 * strict mode, or because a device holds something that is not a flash cache.
 */
public final class CacheRecoveryException extends IOException {
    private static final long serialVersionUID = 1L;

    public CacheRecoveryException(String message) {
        super(message);
    }
}

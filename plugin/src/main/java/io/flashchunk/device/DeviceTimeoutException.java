package io.flashchunk.device;

import java.io.IOException;

/**
 * A device did not finish an operation in the time allowed: it may be hung. The operation may still
 * finish later, so whatever it reads into or writes from stays its own until it does.
 */
public final class DeviceTimeoutException extends IOException {
    private static final long serialVersionUID = 1L;

    public DeviceTimeoutException(String message) {
        super(message);
    }
}

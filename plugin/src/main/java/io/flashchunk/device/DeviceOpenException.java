package io.flashchunk.device;

import java.io.IOException;

/** A device could not be opened; the message names the path and the reason. */
public final class DeviceOpenException extends IOException {
    private static final long serialVersionUID = 1L;

    public DeviceOpenException(String message) {
        super(message);
    }

    public DeviceOpenException(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.flashchunk.device;

import java.io.IOException;

/** A read or write that the device accepted but could not carry out. */
public final class DeviceIoException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int errno;

    public DeviceIoException(IoRequest request, String path, int errno, String reason) {
        super(request.op().verb() + " of " + request.blocks() + " block(s) at LBA " + request.lba() + " on "
                + path + " failed: " + reason);
        this.errno = errno;
    }

    /** The operating system's error number, or 0 where there was none (e.g. a short transfer). */
    public int errno() {
        return errno;
    }
}

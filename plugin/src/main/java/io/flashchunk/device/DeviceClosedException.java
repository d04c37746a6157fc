package io.flashchunk.device;

/** A request reached a device after {@link BlockDevice#close()}. */
public final class DeviceClosedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public DeviceClosedException(String path) {
        super("device " + path + " is closed");
    }
}

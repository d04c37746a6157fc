package io.flashchunk.device;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How a device moves bytes; chosen per device in the configuration. */
public enum IoEngine {
    /** libaio when it loads, else the thread-pool engine. */
    AUTO,
    /** O_DIRECT with Linux native AIO through libaio.so.1. */
    LIBAIO,
    /**
     * libaio for the queue (writes, and reads that wait in it), and each hit's read in the reader's
     * own thread through an io_uring ring: no completion thread to wake, and still a deadline.
     */
    IO_URING,
    /** O_DIRECT positional I/O on a FileChannel, run by a small thread pool. */
    THREADPOOL,
    /** The CAPI-Flash capiblock API (libcflsh_block). */
    CAPI;

    /** The name used in configuration files. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a configuration value; the error names the setting, the value and the choices. */
    public static IoEngine parse(String setting, String value) {
        if (value != null) {
            for (IoEngine engine : values()) {
                if (engine.configName().equals(value.trim().toLowerCase(Locale.ROOT))) {
                    return engine;
                }
            }
        }
        throw new IllegalArgumentException(setting + ": unknown engine '" + value + "'; expected one of "
                + Arrays.stream(values()).map(IoEngine::configName).collect(Collectors.joining(", ")));
    }
}

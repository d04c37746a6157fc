package io.flashchunk.device.capi;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import io.flashchunk.device.DeviceOpenException;
import io.flashchunk.device.Errno;

/**
 * The capiblock C API (libcflsh_block) bound by JNA direct mapping; pointers are passed as longs.
 * Natives bind to one library per JVM: the first that loads. {@code cblk_init} runs when the first
 * device opens and {@code cblk_term} when the last one closes.
 */
final class CapiBlockLibrary {
    static final int CBLK_ARW_USER_TAG_FLAG = 2;
    static final int CBLK_ARESULT_NEXT_TAG = 1;
    static final int CBLK_ARESULT_BLOCKING = 2;
    static final int NULL_CHUNK_ID = -1;

    private static String boundLibrary;
    private static int openDevices;

    private CapiBlockLibrary() {
    }

    /** Loads (once) and initialises the library for one more device. */
    static synchronized void acquire(String library) throws DeviceOpenException {
        NativeLibrary loaded;
        try {
            loaded = NativeLibrary.getInstance(library);
        } catch (UnsatisfiedLinkError e) {
            throw new DeviceOpenException("CAPI library " + library + " does not load: " + firstLine(e.getMessage()), e);
        }
        if (boundLibrary == null) {
            try {
                Native.register(CapiBlockLibrary.class, loaded);
            } catch (UnsatisfiedLinkError e) {
                throw new DeviceOpenException("CAPI library " + library + " is not a capiblock library: "
                        + firstLine(e.getMessage()), e);
            }
            boundLibrary = loaded.getFile() == null ? library : loaded.getFile().getPath();
        } else if (!sameLibrary(loaded, library)) {
            throw new DeviceOpenException("CAPI library " + boundLibrary + " is already in use in this JVM; cannot also use "
                    + library);
        }
        if (openDevices == 0) {
            int rc = cblk_init(0, 0);
            if (rc != 0) {
                throw new DeviceOpenException("cblk_init in " + library + " failed: " + Errno.describe(Native.getLastError()));
            }
        }
        openDevices++;
    }

    static synchronized void releaseDevice() {
        if (--openDevices == 0) {
            cblk_term(0, 0);
        }
    }

    private static boolean sameLibrary(NativeLibrary loaded, String requested) {
        String file = loaded.getFile() == null ? requested : loaded.getFile().getPath();
        return file.equals(boundLibrary);
    }

    private static String firstLine(String message) {
        String text = String.valueOf(message);
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }

    static native int cblk_init(long arg, long flags);

    static native int cblk_term(long arg, long flags);

    static native int cblk_open(String path, int maxNumRequests, int mode, long ext, int flags);

    static native int cblk_close(int chunkId, int flags);

    static native int cblk_get_lun_size(int chunkId, long nblocksOut, int flags);

    static native int cblk_aread(int chunkId, long buf, long lba, long nblocks, long tag, long status, int flags);

    static native int cblk_awrite(int chunkId, long buf, long lba, long nblocks, long tag, long status, int flags);

    static native int cblk_aresult(int chunkId, long tag, long status, int flags);

    static native int cblk_get_stats(int chunkId, long statsOut, int flags);
}

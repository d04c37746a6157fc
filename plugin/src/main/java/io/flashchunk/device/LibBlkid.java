package io.flashchunk.device;

import com.sun.jna.Pointer;

/**
 * util-linux's low-level probing API in libblkid.so.1, bound by JNA direct mapping. Signatures and
 * flag values are those of blkid.h (util-linux 2.38). The library is looked up once per JVM;
 * {@code -Dflashchunk.libblkid.library} names another file.
 */
final class LibBlkid {
    static final String LIBRARY = System.getProperty("flashchunk.libblkid.library", "libblkid.so.1");
    private static final Throwable LOAD_FAILURE = NativeBindings.register(LibBlkid.class, LIBRARY);

    /** blkid.h: define TYPE, USAGE, SBMAGIC_OFFSET; and report a signature whose checksum is bad too. */
    static final int SUBLKS_TYPE = 1 << 5;
    static final int SUBLKS_USAGE = 1 << 7;
    static final int SUBLKS_MAGIC = 1 << 9;
    static final int SUBLKS_BADCSUM = 1 << 10;
    /** blkid.h: define PTMAGIC_OFFSET. */
    static final int PARTS_MAGIC = 1 << 3;

    private LibBlkid() {
    }

    /** Why the library did not load, or null when it did. */
    static String unavailableReason() {
        return NativeBindings.unavailableReason(LIBRARY, LOAD_FAILURE);
    }

    /** {@code blkid_probe blkid_new_probe_from_filename(const char *filename)}: opens it read-only; NULL on error. */
    static native Pointer blkid_new_probe_from_filename(String filename);

    /** {@code void blkid_free_probe(blkid_probe pr)}: closes the descriptor the probe opened. */
    static native void blkid_free_probe(Pointer probe);

    /** {@code int blkid_probe_enable_superblocks(blkid_probe pr, int enable)} */
    static native int blkid_probe_enable_superblocks(Pointer probe, int enable);

    /** {@code int blkid_probe_set_superblocks_flags(blkid_probe pr, int flags)} */
    static native int blkid_probe_set_superblocks_flags(Pointer probe, int flags);

    /** {@code int blkid_probe_enable_partitions(blkid_probe pr, int enable)} */
    static native int blkid_probe_enable_partitions(Pointer probe, int enable);

    /** {@code int blkid_probe_set_partitions_flags(blkid_probe pr, int flags)} */
    static native int blkid_probe_set_partitions_flags(Pointer probe, int flags);

    /** {@code int blkid_do_probe(blkid_probe pr)}: 0 one more result, 1 done, -1 error. */
    static native int blkid_do_probe(Pointer probe);

    /**
     * {@code int blkid_probe_lookup_value(blkid_probe pr, const char *name, const char **data, size_t *len)}:
     * 0 and the value's address in {@code data[0]} (owned by the probe), or negative when absent.
     */
    static native int blkid_probe_lookup_value(Pointer probe, String name, long[] data, Pointer length);
}

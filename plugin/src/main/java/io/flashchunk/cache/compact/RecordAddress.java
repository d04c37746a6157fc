package io.flashchunk.cache.compact;

/**
 * Where a chunk's record is on flash, in the low 39 bits of a long: the address space (6 bits) and
 * the record's offset in 512-byte sectors from the start of that space (33 bits, so 4 TiB a space).
 * Records start at sector 1 or later (sector 0 holds the superblock), so no address is 0 and 0 can
 * mean "none".
 */
public final class RecordAddress {
    public static final long NONE = 0;
    public static final int SECTOR_BYTES = 512;
    public static final int MAX_SPACES = 1 << 6;
    public static final long MAX_SECTOR = (1L << 33) - 1;
    /** Bits an address takes. */
    static final int BITS = 39;
    static final long MASK = (1L << BITS) - 1;
    private static final int SPACE_SHIFT = 33;

    private RecordAddress() {
    }

    public static long of(int space, long sector) {
        if (space < 0 || space >= MAX_SPACES) {
            throw new IllegalArgumentException("space " + space + " is outside 0.." + (MAX_SPACES - 1));
        }
        if (sector < 1 || sector > MAX_SECTOR) {
            throw new IllegalArgumentException("sector " + sector + " is outside 1.." + MAX_SECTOR);
        }
        return (long) space << SPACE_SHIFT | sector;
    }

    public static int space(long address) {
        return (int) (address >>> SPACE_SHIFT) & (MAX_SPACES - 1);
    }

    public static long sector(long address) {
        return address & MAX_SECTOR;
    }

    /** The record's first byte within its space. */
    public static long byteOffset(long address) {
        return sector(address) * SECTOR_BYTES;
    }

    public static String describe(long address) {
        return address == NONE ? "none" : "space " + space(address) + " sector " + sector(address);
    }
}

package io.flashchunk.cache.format;

/**
 * Where a chunk's record is on flash, in the low 42 bits of a long: the address space (6 bits) and
 * the record's offset from the start of that space in "sectors", the records' alignment unit of
 * {@value #SECTOR_BYTES} bytes (36 bits, so 4 TiB a space). Records start at sector 1 or later
 * (sector 0 holds the superblock), so no address is 0 and 0 can mean "none".
 *
 * <p>Why 64 bytes: a record is its chunk plus a 32-byte header, so a power-of-two chunk never fills
 * whole units of its alignment; at 512 bytes the padding cost 3.1% of the flash written and held at
 * 16 KiB chunks, at 64 bytes 0.4%. The three more address bits come out of the index's tag.
 */
public final class RecordAddress {
    public static final long NONE = 0;
    public static final int SECTOR_BYTES = 64;
    public static final int MAX_SPACES = 1 << 6;
    public static final long MAX_SECTOR = (1L << 36) - 1;
    /** Bits an address takes. */
    public static final int BITS = 42;
    public static final long MASK = (1L << BITS) - 1;
    private static final int SPACE_SHIFT = 36;

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

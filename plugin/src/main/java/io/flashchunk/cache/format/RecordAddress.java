package io.flashchunk.cache.format;

/**
 * Where a chunk's record is on flash, in the low 42 bits of a long: the address space (6 bits) and
 * the record's offset from the start of that space in "sectors" (36 bits), the records' alignment
 * unit in that space. Records start at sector 1 or later (sector 0 holds the superblock), so no
 * address is 0 and 0 can mean "none".
 *
 * <p>A space's sector is {@value #MIN_SECTOR_BYTES} bytes on a device of up to 4 TiB and the
 * smallest power of two that lets 36 bits reach every segment of a larger one, up to
 * {@value #MAX_SECTOR_BYTES} bytes (256 TiB); {@link DeviceLayout} chooses it and the superblock
 * records it. Why small: a record is its chunk plus a 32-byte header, so a power-of-two chunk never
 * fills whole units of its alignment: header and padding take 0.4% more flash than a 16 KiB chunk
 * with 64-byte sectors, 1.6% with 256 (16 TiB), 6.3% with 1 KiB (64 TiB).
 */
public final class RecordAddress {
    public static final long NONE = 0;
    /** The sector of a space of up to 4 TiB. */
    public static final int MIN_SECTOR_BYTES = 64;
    /** The largest sector: a block, so a space reaches 256 TiB. */
    public static final int MAX_SECTOR_BYTES = 4096;
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

    /** Whether {@code sectorBytes} can be a space's sector: a power of two from 64 to 4096. */
    public static boolean isSectorSize(int sectorBytes) {
        return sectorBytes >= MIN_SECTOR_BYTES && sectorBytes <= MAX_SECTOR_BYTES && Integer.bitCount(sectorBytes) == 1;
    }

    public static String describe(long address) {
        return address == NONE ? "none" : "space " + space(address) + " sector " + sector(address);
    }
}

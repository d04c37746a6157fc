package io.flashchunk.cache.checkpoint;

/**
 * Where things are on one device (block numbers, 4096-byte blocks):
 *
 * <pre>
 * 0                      superblock
 * 1 .. area              checkpoint area A
 * 1+area .. 1+2*area     checkpoint area B
 * dataStart ..           data blocks (the address space)
 * </pre>
 *
 * Each checkpoint area holds a header block and then, worst case, one record per data block (a
 * chunk of one block) plus a share for the file table, so a checkpoint always fits.
 */
public record SpaceLayout(long deviceBlocks, long areaBlocks, long dataStart, long dataBlocks) {
    public static final int BLOCK_SIZE = 4096;
    /** Area bytes budgeted per data block: one entry record plus a share of the file table. */
    static final int AREA_BYTES_PER_DATA_BLOCK = CheckpointFormat.ENTRY_BYTES + 4;

    public static SpaceLayout forDevice(long deviceBlocks) {
        if (deviceBlocks < 16) {
            throw new IllegalArgumentException("a cache device needs at least 16 blocks, got " + deviceBlocks);
        }
        // Largest data area such that 1 + 2 * area(data) + data <= deviceBlocks.
        long data = (long) ((deviceBlocks - 5) / (1 + 2.0 * AREA_BYTES_PER_DATA_BLOCK / BLOCK_SIZE));
        while (1 + 2 * areaBlocksFor(data) + data > deviceBlocks) {
            data--;
        }
        long area = areaBlocksFor(data);
        return new SpaceLayout(deviceBlocks, area, 1 + 2 * area, data);
    }

    static long areaBlocksFor(long dataBlocks) {
        return 1 + (dataBlocks * AREA_BYTES_PER_DATA_BLOCK + BLOCK_SIZE - 1) / BLOCK_SIZE;
    }

    /** First block of checkpoint area 0 (A) or 1 (B). */
    public long areaStart(int area) {
        return 1 + area * areaBlocks;
    }
}

package io.flashchunk.sim;

/** Which missed chunks a {@link SegmentedCache} writes to flash. */
interface Admission {
    /** Every read, hit or miss, before the cache looks the chunk up. */
    void accessed(long key);

    /**
     * Whether the chunk just missed is written to flash, where it will in the end take the place of
     * chunks like {@code victim} ({@link SegmentLog#NO_VICTIM} while flash has room never used).
     */
    boolean admit(long key, long victim);
}

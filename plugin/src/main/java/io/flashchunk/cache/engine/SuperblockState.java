package io.flashchunk.cache.engine;

/** What block 0 of a device holds. */
public enum SuperblockState {
    VALID("valid"),
    /** All zeros: the device was never formatted as a cache. */
    BLANK("blank"),
    /** Not a superblock this version reads: bad magic, version, checksum, or unreadable. */
    INVALID("invalid");

    private final String label;

    SuperblockState(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}

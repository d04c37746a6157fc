package io.flashchunk.checkpoint.tool;

/** What block 0 of a device holds. */
enum SuperblockState {
    VALID("valid"),
    /** All zeros: the device was never formatted as a cache. */
    BLANK("blank"),
    /** Not a superblock this version reads: bad magic, version, checksum, or unreadable. */
    INVALID("invalid");

    private final String label;

    SuperblockState(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }
}

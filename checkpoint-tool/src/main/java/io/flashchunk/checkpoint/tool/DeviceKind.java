package io.flashchunk.checkpoint.tool;

/** What sits at a cache device path, as far as the cache cares. */
enum DeviceKind {
    REGULAR_FILE("regular file"),
    BLOCK_DEVICE("block device"),
    MISSING("missing"),
    /** Directories, character devices, FIFOs, sockets: nothing a cache can live on. */
    OTHER("other");

    private final String label;

    DeviceKind(String label) {
        this.label = label;
    }

    /** The name both output formats print. */
    String label() {
        return label;
    }

    boolean canHoldCache() {
        return this == REGULAR_FILE || this == BLOCK_DEVICE;
    }
}

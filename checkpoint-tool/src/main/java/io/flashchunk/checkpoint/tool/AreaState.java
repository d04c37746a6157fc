package io.flashchunk.checkpoint.tool;

/** What one checkpoint area holds. */
enum AreaState {
    /** A checkpoint that passes every check the cache's recovery makes. */
    VALID("valid"),
    /**
     * An all-zero header block: never written, or wiped by a checkpoint that was still being written.
     * Not a problem: the cache wipes the header before it rewrites an area.
     */
    EMPTY("empty"),
    /** Anything else: a torn or corrupt header or body, or a checkpoint of another cache or space. */
    INVALID("invalid");

    private final String label;

    AreaState(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }
}

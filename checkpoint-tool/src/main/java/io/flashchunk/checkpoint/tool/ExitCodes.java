package io.flashchunk.checkpoint.tool;

/** Exit codes of the checkpoint subcommands (info, list, stats, verify). */
final class ExitCodes {
    /** The report was printed; for verify: everything checked is sound. */
    static final int OK = 0;
    /** verify only: at least one problem was found. */
    static final int PROBLEMS = 1;
    /** Bad usage, or a path that cannot be opened as a device. */
    static final int UNUSABLE = 2;

    private ExitCodes() {
    }
}

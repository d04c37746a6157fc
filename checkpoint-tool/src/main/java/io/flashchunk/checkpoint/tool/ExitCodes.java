package io.flashchunk.checkpoint.tool;

/** Exit codes of the checkpoint subcommands (info, list, stats, verify). */
final class ExitCodes {
    /** The report was printed; for verify: everything checked is sound. */
    static final int OK = 0;
    /** verify only: at least one problem was found. */
    static final int PROBLEMS = 1;
    /**
     * Bad usage, a path that cannot be opened as a device, or a device in a format this version no
     * longer reads (the removed per-chunk engine's): nothing to report on.
     */
    static final int UNUSABLE = 2;
    /** {@link #UNUSABLE} as every checkpoint subcommand's help lists it. */
    static final String UNUSABLE_HELP = "2:bad usage, or a path that is missing, not a regular file or block device, "
            + "or cannot be opened; or a device in the per-chunk engine's format, which this version no longer reads";

    private ExitCodes() {
    }
}

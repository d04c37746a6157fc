package io.flashchunk.cache.checkpoint;

/**
 * The full checkpoint one address space was recovered from and the deltas after it that recovery
 * read, as the next run's deltas go on from them: they are written after the last one read, and
 * each still names everything since the same full checkpoint (what the recovered deltas named, with
 * its invalidations, and what this run changes). Made by {@link Recovery} only when every space came
 * back from one full checkpoint with nothing refused; otherwise this run starts with a full one.
 */
final class RecoveredChain {
    final int area;
    final long baseSequence;
    final long baseEntries;
    /** Deltas read after the full checkpoint (0: the full one alone); the next is one more. */
    final int deltas;
    /** Where the next delta's header goes. */
    final long nextBlock;
    /** Per segment of the space, the use the full checkpoint named (0 = none). */
    final long[] baseSequences;
    /**
     * Per segment, the first sector whose records were new since the full checkpoint in that use,
     * as the delta read says ({@link io.flashchunk.cache.format.DeltaHeader#ALL_SECTORS} where the
     * delta does not name the segment in the full checkpoint's use).
     */
    final int[] baseSectors;
    /** Per segment, the use the recovered chain names, and the sectors of it named (ALL_SECTORS: whole). */
    final long[] namedSequences;
    final int[] namedSectors;
    /** Body bytes of the last delta read (0: none): what the next checkpoint, a delta, is weighed against. */
    final long lastDeltaBytes;

    RecoveredChain(int area, long baseSequence, long baseEntries, int deltas, long nextBlock, long[] baseSequences,
                   int[] baseSectors, long[] namedSequences, int[] namedSectors, long lastDeltaBytes) {
        this.area = area;
        this.baseSequence = baseSequence;
        this.baseEntries = baseEntries;
        this.deltas = deltas;
        this.nextBlock = nextBlock;
        this.baseSequences = baseSequences;
        this.baseSectors = baseSectors;
        this.namedSequences = namedSequences;
        this.namedSectors = namedSectors;
        this.lastDeltaBytes = lastDeltaBytes;
    }
}

package io.flashchunk.cache.space;

import io.flashchunk.cache.read.SegmentReader;
import io.flashchunk.cache.write.SegmentWriter;
import java.util.concurrent.atomic.LongAdder;

/**
 * Flash reads per address space and the time they took, counted by the {@link SegmentReader} as hits
 * read their records. The time is the load the {@link SegmentWriter} opens the next segment by (where
 * reads loaded the devices least) and {@link HotChunkMoves} moves hot chunks by: time in reads over a
 * span is the reads in flight on average (Little's law), so a slow or throttled device counts as
 * loaded sooner than a fast one serving as many reads (the paper's load-balanced address spaces).
 * Thread-safe.
 */
public final class SpaceReads {
    private final LongAdder[] reads;
    private final LongAdder[] readNanos;
    private final LongAdder[] refusals;
    private final LongAdder[] refusalNanos;

    public SpaceReads(int spaces) {
        reads = adders(spaces);
        readNanos = adders(spaces);
        refusals = adders(spaces);
        refusalNanos = adders(spaces);
    }

    private static LongAdder[] adders(int spaces) {
        LongAdder[] adders = new LongAdder[spaces];
        for (int space = 0; space < spaces; space++) {
            adders[space] = new LongAdder();
        }
        return adders;
    }

    /**
     * A record was read from the flash of {@code space} in {@code nanos}, or the read failed or timed
     * out after it; a read counts as at least 1 ns, so reads timed on a clock that did not move still
     * load their space.
     */
    public void read(int space, long nanos) {
        reads[space].increment();
        readNanos[space].add(Math.max(1, nanos));
    }

    /**
     * No read of {@code space} could start (as many in flight as it may, none answering): its device
     * counts as busy for {@code nanos} (the read timeout), with no read counted.
     */
    public void busy(int space, long nanos) {
        refusals[space].increment();
        refusalNanos[space].add(Math.max(1, nanos));
    }

    /** Flash reads of {@code space} so far. */
    public long count(int space) {
        return reads[space].sum();
    }

    /** Nanoseconds the flash reads of {@code space} took so far (at least 1 each): reads made only. */
    public long readNanos(int space) {
        return readNanos[space].sum();
    }

    /** Hits that found {@code space} with as many reads in flight as it may, and made none. */
    public long refusals(int space) {
        return refusals[space].sum();
    }

    /**
     * The load of {@code space} so far: the time its reads took, and a read timeout for each hit that
     * could not start one.
     */
    public long busyNanos(int space) {
        return readNanos[space].sum() + refusalNanos[space].sum();
    }

    public int spaces() {
        return reads.length;
    }
}

package io.flashchunk.cache.space;

import io.flashchunk.cache.read.SegmentReader;
import io.flashchunk.cache.write.SegmentWriter;
import java.util.concurrent.atomic.LongAdder;

/**
 * Flash reads per address space, counted by the {@link SegmentReader} as hits read their records,
 * looked at by the {@link SegmentWriter} to open the next segment where reads load the devices least
 * (the paper's load-balanced address spaces). Thread-safe.
 */
public final class SpaceReads {
    private final LongAdder[] reads;

    public SpaceReads(int spaces) {
        reads = new LongAdder[spaces];
        for (int space = 0; space < spaces; space++) {
            reads[space] = new LongAdder();
        }
    }

    /** A record was read from the flash of {@code space}. */
    public void read(int space) {
        reads[space].increment();
    }

    /** Flash reads of {@code space} so far. */
    public long count(int space) {
        return reads[space].sum();
    }

    public int spaces() {
        return reads.length;
    }
}

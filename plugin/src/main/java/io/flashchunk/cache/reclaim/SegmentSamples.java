package io.flashchunk.cache.reclaim;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A few keys of each segment's current use, drawn evenly from its chunks (reservoir sampling), so
 * that admission can weigh a missed chunk against the chunks it would in the end displace without
 * reading a segment summary: {@value #PER_SEGMENT} keys, 32 bytes a segment. Writer thread only.
 */
public final class SegmentSamples {
    public static final int PER_SEGMENT = 4;

    private final long[] keys;
    private final int[] seen;
    private final SplittableRandom random = new SplittableRandom(0x5EED);

    public SegmentSamples(int segments) {
        keys = new long[segments * PER_SEGMENT];
        seen = new int[segments];
    }

    /** The segment starts a new use: its samples are forgotten. */
    public void opened(int segment) {
        seen[segment] = 0;
    }

    /** A chunk of {@code key} was appended to {@code segment}. */
    public void appended(int segment, long key) {
        int n = seen[segment]++;
        int at = n < PER_SEGMENT ? n : random.nextInt(n + 1);
        if (at < PER_SEGMENT) {
            keys[segment * PER_SEGMENT + at] = key;
        }
    }

    /** The sampled keys of the segment's current use (none if it has no chunk). */
    public long[] of(int segment) {
        int n = Math.min(PER_SEGMENT, seen[segment]);
        return Arrays.copyOfRange(keys, segment * PER_SEGMENT, segment * PER_SEGMENT + n);
    }
}

package io.flashchunk.cache.compact;

/**
 * What the {@link SegmentWriter} does beyond appending and reclaiming: tell admission which chunks the
 * next reclaim would drop ({@code admission}, or null), and write again the chunks of a reclaimed
 * segment that were read since they were written, the most read first, up to {@code reinsertShare}
 * of a segment (0: none). The share bounds the flash bytes written per admitted byte at
 * {@code 1 / (1 - reinsertShare)}.
 */
public record WriterPolicy(VictimAdmission admission, double reinsertShare) {
    /** No admission, no reinsertion. */
    public static final WriterPolicy NONE = new WriterPolicy(null, 0);

    public WriterPolicy {
        if (!(reinsertShare >= 0 && reinsertShare <= 0.5)) {
            throw new IllegalArgumentException("reinsertion share " + reinsertShare + " is outside 0..0.5");
        }
    }
}

package io.flashchunk.cache.write;

import io.flashchunk.cache.admission.VictimAdmission;
import io.flashchunk.cache.space.HotChunkMoves;
import io.flashchunk.cache.space.SpaceReads;
import java.util.function.LongPredicate;

/**
 * What the {@link SegmentWriter} does beyond appending and reclaiming: tell admission which chunks the
 * next reclaim would drop ({@code admission}, or null), and write again the chunks of a reclaimed
 * segment that were read since they were written, the most read first, up to {@code reinsertShare}
 * of a segment (0: none). The share bounds the flash bytes written per admitted byte at
 * {@code 1 / (1 - reinsertShare)}. When no segment is free, {@code reclaimBatch} segments are
 * chosen at once: they are doomed, serve on, and wait for a checkpoint, so one checkpoint per
 * batch rather than one per segment (a checkpoint writes the whole index). With
 * {@code load} (or null: in turn), each segment opens in the space with a free segment whose flash
 * reads since the last segment opened were fewest (ties: the most free segments), so writes and the
 * hot chunks reinsertion moves go to the least loaded device (the paper's load-balanced spaces).
 * With {@code liveKey} (or null: every key), segments holding only chunks of keys it refuses (their
 * file is gone) are reclaimed first, and such chunks are not written again: a compacted SSTable's hot
 * chunks must not keep its successor's out of flash (admission, which owns the victim rule, skips
 * them too: {@link VictimAdmission}). With {@code moves} (or null: none), hot chunks read from a loaded
 * space are written again into a less loaded one ({@link SegmentWriter#move}). With
 * {@code storeUncompressed} (or null: none), a chunk kept compressed whose key it accepts is written
 * again uncompressed (its file's chunks are now stored as they are).
 */
public final class WriterPolicy {
    /** No admission, no reinsertion, one segment chosen at a time, spaces in turn. */
    public static final WriterPolicy NONE = new WriterPolicy(null, 0, 1, null, null, null);

    private final VictimAdmission admission;
    private final double reinsertShare;
    private final int reclaimBatch;
    private final SpaceReads load;
    private final LongPredicate liveKey;
    private final HotChunkMoves moves;
    private final LongPredicate storeUncompressed;

    public WriterPolicy(VictimAdmission admission, double reinsertShare, int reclaimBatch, SpaceReads load,
                        LongPredicate liveKey) {
        this(admission, reinsertShare, reclaimBatch, load, liveKey, null);
    }

    public WriterPolicy(VictimAdmission admission, double reinsertShare, int reclaimBatch, SpaceReads load,
                        LongPredicate liveKey, HotChunkMoves moves) {
        this(admission, reinsertShare, reclaimBatch, load, liveKey, moves, null);
    }

    public WriterPolicy(VictimAdmission admission, double reinsertShare, int reclaimBatch, SpaceReads load,
                        LongPredicate liveKey, HotChunkMoves moves, LongPredicate storeUncompressed) {
        if (!(reinsertShare >= 0 && reinsertShare <= 0.5)) {
            throw new IllegalArgumentException("reinsertion share " + reinsertShare + " is outside 0..0.5");
        }
        if (reclaimBatch < 1) {
            throw new IllegalArgumentException("reclaim batch " + reclaimBatch + " is not positive");
        }
        this.admission = admission;
        this.reinsertShare = reinsertShare;
        this.reclaimBatch = reclaimBatch;
        this.load = load;
        this.liveKey = liveKey;
        this.moves = moves;
        this.storeUncompressed = storeUncompressed;
    }

    public VictimAdmission admission() {
        return admission;
    }

    public double reinsertShare() {
        return reinsertShare;
    }

    public int reclaimBatch() {
        return reclaimBatch;
    }

    public SpaceReads load() {
        return load;
    }

    public LongPredicate liveKey() {
        return liveKey;
    }

    /** Keys whose chunks kept compressed are written again uncompressed, or null: none. */
    public LongPredicate storeUncompressed() {
        return storeUncompressed;
    }

    /** The moves of hot chunks off loaded spaces, or null: none. */
    public HotChunkMoves moves() {
        return moves;
    }

    public WriterPolicy(VictimAdmission admission, double reinsertShare) {
        this(admission, reinsertShare, 1, null, null);
    }

    /** Spaces in turn, whatever their reads; every key live. */
    public WriterPolicy(VictimAdmission admission, double reinsertShare, int reclaimBatch) {
        this(admission, reinsertShare, reclaimBatch, null, null);
    }

    @Override
    public String toString() {
        return "WriterPolicy[admission=" + admission + ", reinsertShare=" + reinsertShare
                + ", reclaimBatch=" + reclaimBatch + ", load=" + load + ", liveKey=" + liveKey + ", moves=" + moves + ", storeUncompressed=" + storeUncompressed + "]";
    }
}

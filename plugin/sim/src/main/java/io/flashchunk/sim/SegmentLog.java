package io.flashchunk.sim;

import io.flashchunk.cache.reclaim.ReclaimOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Flash as equal segments written one after another: a chunk is appended to the open segment, and
 * when it is full the next is taken, never used or reclaimed in the {@link ReclaimOrder}'s order.
 * Reclaiming a segment drops its chunks, except those read at least {@code reinsertHits} times since
 * they were written, which are written again at the start of the reclaimed segment (Navy's
 * reinsertion, Segcache's merge), the most read first, up to {@code maxRetained} of it: that share
 * bounds the flash bytes written per admitted byte at {@code 1 / (1 - maxRetained)}.
 *
 * <p>With a {@code reclaimBatch} above one, segments are chosen that many at once when none is left
 * to open, so that one checkpoint frees them all. Reclaimed at once, the batch's chunks are gone
 * together and its segments wait, empty but for their kept chunks, for their turn to be opened.
 * Doomed ({@code doomed}), they leave the order together but keep serving their chunks, and each is
 * reclaimed only when it is opened again (the engine's way).
 */
final class SegmentLog {
    private static final class Slot {
        final int segment;
        int epoch;
        int hits;
        /** Hits counted as an index slot would: saturating at {@link #MAX_HIT_COUNT}, halved as a sketch ages. */
        int hitCount;

        Slot(int segment, int epoch) {
            this.segment = segment;
            this.epoch = epoch;
        }
    }

    private static final class Segment {
        final int id;
        int epoch;
        long used;
        int count;
        long[] keys = new long[64];
        int[] sizes = new int[64];

        Segment(int id) {
            this.id = id;
        }

        void add(long key, int bytes) {
            if (count == keys.length) {
                keys = Arrays.copyOf(keys, count * 2);
                sizes = Arrays.copyOf(sizes, count * 2);
            }
            keys[count] = key;
            sizes[count++] = bytes;
            used += bytes;
        }
    }

    private final long segmentBytes;
    private final Segment[] segments;
    private final ArrayDeque<Integer> neverUsed = new ArrayDeque<>();
    /** Segments reclaimed and not yet opened again (a batch's others). */
    private final ArrayDeque<Integer> reclaimed = new ArrayDeque<>();
    private final Map<Long, Slot> index = new HashMap<>();
    private final ReclaimOrder order;
    private final int reinsertHits;
    private final double maxRetained;
    private final int reclaimBatch;
    private final boolean doomed;
    /** Doomed one at a time as the order evicts, released a batch at a time (the engine's). */
    private final boolean doomedAsEvicted;
    /** Doomed and not yet released by a checkpoint. */
    private final ArrayDeque<Integer> pending = new ArrayDeque<>();
    private int sealedSinceCheckpoint;
    /** Per segment: chosen to go, not yet reclaimed; its reads no longer count in the order. */
    private final boolean[] isDoomed;
    private Segment open;
    private long admitted;
    private long written;

    SegmentLog(long capacityBytes, long segmentBytes, ReclaimOrder order, int reinsertHits, double maxRetained) {
        this(capacityBytes, segmentBytes, order, reinsertHits, maxRetained, 1, false, false);
    }

    SegmentLog(long capacityBytes, long segmentBytes, ReclaimOrder order, int reinsertHits, double maxRetained,
               int reclaimBatch, boolean doomed) {
        this(capacityBytes, segmentBytes, order, reinsertHits, maxRetained, reclaimBatch, doomed, false);
    }

    /**
     * @param doomedAsEvicted each segment the order evicts is doomed at once and serves on; a
     *        checkpoint every {@code reclaimBatch} segments sealed releases those doomed before it
     *        (and one is taken early when a segment is needed and none is released)
     */
    SegmentLog(long capacityBytes, long segmentBytes, ReclaimOrder order, int reinsertHits, double maxRetained,
               int reclaimBatch, boolean doomed, boolean doomedAsEvicted) {
        if (reclaimBatch < 1) {
            throw new IllegalArgumentException("a reclaim batch of " + reclaimBatch + " segments");
        }
        this.reclaimBatch = reclaimBatch;
        this.doomed = doomed || doomedAsEvicted;
        this.doomedAsEvicted = doomedAsEvicted;
        int count = (int) (capacityBytes / segmentBytes);
        if (count < 2) {
            throw new IllegalArgumentException("need at least 2 segments of " + segmentBytes + " bytes, got "
                    + capacityBytes + " bytes");
        }
        this.segmentBytes = segmentBytes;
        this.segments = new Segment[count];
        this.isDoomed = new boolean[count];
        for (int i = 0; i < count; i++) {
            segments[i] = new Segment(i);
            neverUsed.addLast(i);
        }
        this.order = order;
        this.reinsertHits = reinsertHits;
        this.maxRetained = maxRetained;
        this.open = segments[neverUsed.pollFirst()];
    }

    /** Largest value of a slot's hit counter: 2 bits. */
    static final int MAX_HIT_COUNT = 3;

    /** What {@link #victimSample} returns while the log has room it never used: no chunk has to go. */
    static final long NO_VICTIM = Long.MIN_VALUE;

    /**
     * A chunk, picked at random, of the segment the log reclaims next: what a chunk admitted now
     * would in the end take the place of: the first doomed one, else the order's next.
     * {@link #NO_VICTIM} while segments never used, or reclaimed and not yet opened, remain.
     */
    long victimSample(SplittableRandom random) {
        if (!neverUsed.isEmpty()) {
            return NO_VICTIM;
        }
        if (!reclaimed.isEmpty() && !doomed) {
            return NO_VICTIM; // reclaimed segments wait to be opened: free room, as the engine saw it
        }
        int next = reclaimed.isEmpty() || doomedAsEvicted ? order.next() : reclaimed.peekFirst();
        Segment segment = next < 0 ? null : segments[next];
        return segment == null || segment.count == 0 ? NO_VICTIM : segment.keys[random.nextInt(segment.count)];
    }

    /** Up to {@code count} segments to reclaim together, each as the order gives it up; at least one. */
    private int[] victims(int count) {
        int[] chosen = new int[count];
        int n = 0;
        for (int victim; n < count && (victim = order.victim()) >= 0; ) {
            chosen[n++] = victim;
        }
        if (n == 0) {
            throw new IllegalStateException("the reclaim order has no segment to give up");
        }
        return java.util.Arrays.copyOf(chosen, n);
    }

    static int segments(long capacityBytes, long segmentBytes) {
        return (int) (capacityBytes / segmentBytes);
    }

    /** Whether the chunk is held; a read that finds it counts toward its reinsertion and its segment. */
    boolean read(long key) {
        Slot slot = index.get(key);
        if (slot == null) {
            return false;
        }
        slot.hits++;
        if (slot.hitCount < MAX_HIT_COUNT) {
            slot.hitCount++;
        }
        if (!isDoomed[slot.segment]) {
            order.read(slot.segment);
        }
        return true;
    }

    /** A chunk takes whole 4 KiB blocks of its segment: direct I/O reads it from an aligned address. */
    static int blockBytes(int bytes) {
        return (bytes + ChunkWTinyLfu.BLOCK_BYTES - 1) / ChunkWTinyLfu.BLOCK_BYTES * ChunkWTinyLfu.BLOCK_BYTES;
    }

    void admit(long key, int chunkBytes) {
        int bytes = blockBytes(chunkBytes);
        if (bytes > segmentBytes) {
            throw new IllegalArgumentException("a chunk of " + bytes + " bytes is larger than a segment");
        }
        if (open.used + bytes > segmentBytes && doomedAsEvicted) {
            order.written(open.id);
            while (order.hasEvicted()) {
                int victim = order.victim();
                isDoomed[victim] = true;
                pending.addLast(victim);
            }
            if (++sealedSinceCheckpoint >= reclaimBatch) {
                checkpoint();
            }
            if (!neverUsed.isEmpty()) {
                open = segments[neverUsed.pollFirst()];
            } else {
                if (reclaimed.isEmpty()) {
                    checkpoint(); // a segment is needed: the engine checkpoints to release the doomed
                }
                if (reclaimed.isEmpty()) {
                    for (int victim : victims(reclaimBatch)) {
                        isDoomed[victim] = true;
                        reclaimed.addLast(victim);
                    }
                }
                open = segments[reclaimed.pollFirst()];
                order.opened(open.id);
                isDoomed[open.id] = false;
                reclaim(open);
            }
        } else if (open.used + bytes > segmentBytes) {
            order.written(open.id);
            if (!neverUsed.isEmpty()) {
                open = segments[neverUsed.pollFirst()];
            } else {
                if (reclaimed.isEmpty()) {
                    for (int victim : victims(reclaimBatch)) {
                        if (doomed) {
                            isDoomed[victim] = true;
                        } else {
                            reclaim(segments[victim]);
                        }
                        reclaimed.addLast(victim);
                    }
                }
                open = segments[reclaimed.pollFirst()];
                order.opened(open.id);
                if (isDoomed[open.id]) {
                    isDoomed[open.id] = false;
                    reclaim(open);
                }
            }
        }
        open.add(key, bytes);
        index.put(key, new Slot(open.id, open.epoch));
        admitted += bytes;
        written += bytes;
    }

    /** A checkpoint: the segments doomed before it are released for reuse. */
    private void checkpoint() {
        reclaimed.addAll(pending);
        pending.clear();
        sealedSinceCheckpoint = 0;
    }

    private void reclaim(Segment segment) {
        long[] keys = segment.keys;
        int[] sizes = segment.sizes;
        int count = segment.count;
        segment.keys = new long[64];
        segment.sizes = new int[64];
        segment.count = 0;
        segment.used = 0;
        int epoch = segment.epoch;
        segment.epoch++;
        // the live chunks, those read most since they were written first
        List<Integer> live = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Slot slot = index.get(keys[i]);
            if (slot != null && slot.segment == segment.id && slot.epoch == epoch) {
                live.add(i);
            }
        }
        live.sort(Comparator.comparingInt((Integer i) -> index.get(keys[i]).hits).reversed());
        long retainable = (long) (maxRetained * segmentBytes);
        for (int i : live) {
            Slot slot = index.get(keys[i]);
            if (slot.hits >= reinsertHits && segment.used + sizes[i] <= retainable) {
                segment.add(keys[i], sizes[i]);
                slot.epoch = segment.epoch;
                slot.hits = 0;
                written += sizes[i];
            } else {
                index.remove(keys[i]);
            }
        }
    }

    /**
     * The hit counter of {@code key}'s slot (0 when not held): its hits since it was admitted, at most
     * {@link #MAX_HIT_COUNT}, halved at each {@link #halveHitCounts}. Kept through reinsertion, as a
     * writer copying the slot would.
     */
    int hitCount(long key) {
        Slot slot = index.get(key);
        return slot == null ? 0 : slot.hitCount;
    }

    /** Halves every slot's hit counter: the counts forget at the pace of the sketch beside them. */
    void halveHitCounts() {
        for (Slot slot : index.values()) {
            slot.hitCount >>= 1;
        }
    }

    long admittedBytes() {
        return admitted;
    }

    long writtenBytes() {
        return written;
    }

    int chunks() {
        return index.size();
    }
}

package io.flashchunk.sim;

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
 * when it is full the next is taken, never used or reclaimed in the {@link EvictionOrder}'s order.
 * Reclaiming a segment drops its chunks, except those read at least {@code reinsertHits} times since
 * they were written, which are written again at the start of the reclaimed segment (Navy's
 * reinsertion, Segcache's merge), the most read first, up to {@code maxRetained} of it: that share
 * bounds the flash bytes written per admitted byte at {@code 1 / (1 - maxRetained)}.
 */
final class SegmentLog {
    private static final class Slot {
        final int segment;
        int epoch;
        int hits;

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
    private final Map<Long, Slot> index = new HashMap<>();
    private final EvictionOrder order;
    private final int reinsertHits;
    private final double maxRetained;
    private Segment open;
    private long admitted;
    private long written;

    SegmentLog(long capacityBytes, long segmentBytes, EvictionOrder order, int reinsertHits, double maxRetained) {
        int count = (int) (capacityBytes / segmentBytes);
        if (count < 2) {
            throw new IllegalArgumentException("need at least 2 segments of " + segmentBytes + " bytes, got "
                    + capacityBytes + " bytes");
        }
        this.segmentBytes = segmentBytes;
        this.segments = new Segment[count];
        for (int i = 0; i < count; i++) {
            segments[i] = new Segment(i);
            neverUsed.addLast(i);
        }
        this.order = order;
        this.reinsertHits = reinsertHits;
        this.maxRetained = maxRetained;
        this.open = segments[neverUsed.pollFirst()];
    }

    /** What {@link #victimSample} returns while the log has room it never used: no chunk has to go. */
    static final long NO_VICTIM = Long.MIN_VALUE;

    /**
     * A chunk, picked at random, of the segment the log reclaims next: what a chunk admitted now
     * would in the end take the place of. {@link #NO_VICTIM} while segments never used remain.
     */
    long victimSample(SplittableRandom random) {
        if (!neverUsed.isEmpty()) {
            return NO_VICTIM;
        }
        int next = order.next();
        Segment segment = next < 0 ? null : segments[next];
        return segment == null || segment.count == 0 ? NO_VICTIM : segment.keys[random.nextInt(segment.count)];
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
        order.hit(slot.segment);
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
        if (open.used + bytes > segmentBytes) {
            order.sealed(open.id);
            open = segments[neverUsed.isEmpty() ? order.victim() : neverUsed.pollFirst()];
            reclaim(open);
        }
        open.add(key, bytes);
        index.put(key, new Slot(open.id, open.epoch));
        admitted += bytes;
        written += bytes;
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

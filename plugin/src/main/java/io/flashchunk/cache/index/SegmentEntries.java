package io.flashchunk.cache.index;

import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongToIntFunction;

/**
 * How many of each segment's records the index still points at (its live chunks), against how many
 * records its current use holds: exact, since {@link ChunkLocations}, the one place an entry is added
 * or removed, counts every change here. A segment whose live chunks fall to a quarter of its records
 * or fewer ({@link #mostlyDead}) is queued for the reclaimer, which takes it before the order's turn:
 * the space of dropped and compacted files' chunks comes back without waiting for the order to reach
 * their segments. One left with no live chunk at all is queued apart too ({@link #takeEmpty}): it
 * costs nothing to reclaim, so the reclaimer takes every such one at once. Two ints a segment.
 * Writer thread only (recovery's before the writer starts), but for the totals, which any thread may
 * read ({@link #deadRecords}).
 */
public final class SegmentEntries {
    /** A segment with at most this share of its records live is reclaimed before the order's turn. */
    public static final double MOSTLY_DEAD_SHARE = 0.25;

    private final int[] live;
    private final int[] records;
    private final LongToIntFunction segmentOf;
    private final ArrayDeque<Integer> mostlyDead = new ArrayDeque<>();
    private final BitSet queued;
    private final ArrayDeque<Integer> empty = new ArrayDeque<>();
    private final BitSet queuedEmpty;
    // Written by the writer alone (plain read, opaque write: no fence on the append path), read by stats.
    private final AtomicLong liveTotal = new AtomicLong();
    private final AtomicLong recordsTotal = new AtomicLong();

    /** @param segmentOf the segment a record address lies in, -1 when none */
    public SegmentEntries(int segments, LongToIntFunction segmentOf) {
        live = new int[segments];
        records = new int[segments];
        queued = new BitSet(segments);
        queuedEmpty = new BitSet(segments);
        this.segmentOf = segmentOf;
    }

    /** Memory for {@code segments} segments. */
    public static long bytesFor(int segments) {
        return 8L * segments + 2L * (segments / 8);
    }

    /** The segment starts a new use: no records, none live. */
    public void opened(int segment) {
        addLive(-live[segment]);
        addRecords(-records[segment]);
        live[segment] = 0;
        records[segment] = 0;
    }

    /**
     * The segment was reclaimed (or its write abandoned) and its chunks left the index: none of its
     * records holds flash any more, so none is counted dead.
     */
    public void emptied(int segment) {
        addRecords(live[segment] - records[segment]);
        records[segment] = live[segment];
    }

    /** A record was appended at {@code address} and the index points at it. */
    void placed(long address) {
        int segment = segmentOf.applyAsInt(address);
        if (segment >= 0) {
            live[segment]++;
            records[segment]++;
            addLive(1);
            addRecords(1);
        }
    }

    /** The index no longer points at the record at {@code address}. */
    void gone(long address) {
        int segment = segmentOf.applyAsInt(address);
        if (segment >= 0 && live[segment] > 0) {
            boolean wasAbove = !isMostlyDead(segment);
            live[segment]--;
            addLive(-1);
            if (wasAbove && isMostlyDead(segment)) {
                queue(segment);
            }
            if (live[segment] == 0) {
                queueEmpty(segment);
            }
        }
    }

    /**
     * After recovery, before the writer starts: the live chunks of each segment counted from the
     * index, and each taken as the segment's records until its summary says how many it holds
     * ({@link #recordsAre}).
     */
    public void count(ChunkIndex index) {
        java.util.Arrays.fill(live, 0);
        java.util.Arrays.fill(records, 0);
        liveTotal.setOpaque(0);
        recordsTotal.setOpaque(0);
        index.forEachSlot((bucket, slot) -> placed(ChunkIndex.address(slot)));
    }

    /** A recovered segment's summary names {@code count} records: its live chunks are weighed against them. */
    public void recordsAre(int segment, int count) {
        int now = Math.max(count, live[segment]);
        addRecords(now - records[segment]);
        records[segment] = now;
        if (isMostlyDead(segment)) {
            queue(segment);
        }
    }

    /** Whether the segment holds records and none of them is live. */
    public boolean isEmpty(int segment) {
        return records[segment] > 0 && live[segment] == 0;
    }

    /** Whether the segment holds records of which at most {@link #MOSTLY_DEAD_SHARE} are live. */
    public boolean isMostlyDead(int segment) {
        return records[segment] > 0 && live[segment] <= records[segment] * MOSTLY_DEAD_SHARE;
    }

    /**
     * Queues a segment found mostly dead for the reclaimer (once until taken), and also apart from the
     * others when it has no live chunk left (once until taken from that queue).
     */
    public void queue(int segment) {
        if (!queued.get(segment)) {
            queued.set(segment);
            mostlyDead.add(segment);
        }
        queueEmpty(segment);
    }

    private void queueEmpty(int segment) {
        if (isEmpty(segment) && !queuedEmpty.get(segment)) {
            queuedEmpty.set(segment);
            empty.add(segment);
        }
    }

    /**
     * The next segment queued as having no live chunk that still has records and none live, taken off
     * that queue (with those queued before it that no longer have: reclaimed, or reused since, as
     * every segment reclaimed by its summary is queued on the way); -1 when none. The caller checks
     * its state.
     */
    public int takeEmpty() {
        for (Integer segment = empty.poll(); segment != null; segment = empty.poll()) {
            queuedEmpty.clear(segment);
            if (isEmpty(segment)) {
                return segment;
            }
        }
        return -1;
    }

    /** The next segment queued as mostly dead, taken off the queue; -1 when none. The caller checks it still is. */
    public int takeMostlyDead() {
        Integer segment = mostlyDead.poll();
        if (segment == null) {
            return -1;
        }
        queued.clear(segment);
        return segment;
    }

    /** Whether a segment is queued as mostly dead. */
    public boolean anyMostlyDead() {
        return !mostlyDead.isEmpty();
    }

    /** The segment's live chunks: records the index points at. */
    public int live(int segment) {
        return live[segment];
    }

    /** The records of the segment's current use (for a recovered one, as its summary or the index says). */
    public int records(int segment) {
        return records[segment];
    }

    /** Live chunks in all segments: the index's entries that point at a segment. Any thread. */
    public long liveTotal() {
        return liveTotal.getOpaque();
    }

    /**
     * Records on flash (or in an open segment) that the index no longer points at: chunks replaced,
     * invalidated, or of dead files. Their space comes back when their segments are reclaimed. A
     * recovered segment's are counted once the writer has read its summary. Any thread; the two
     * totals are read one after the other, so the figure may be a few records off while the writer moves.
     */
    public long deadRecords() {
        return Math.max(0, recordsTotal.getOpaque() - liveTotal.getOpaque());
    }

    private void addLive(long delta) {
        liveTotal.setOpaque(liveTotal.getPlain() + delta);
    }

    private void addRecords(long delta) {
        recordsTotal.setOpaque(recordsTotal.getPlain() + delta);
    }
}

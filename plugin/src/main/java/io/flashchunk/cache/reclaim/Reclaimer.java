package io.flashchunk.cache.reclaim;

import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.format.SegmentSummary;
import io.flashchunk.cache.index.ChunkLocations;
import io.flashchunk.cache.index.SegmentEntries;
import io.flashchunk.cache.space.AddressSpaces;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.cache.space.SpaceBalancer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * Where space is freed. Each segment the {@link ReclaimOrder} gives up is doomed as it goes, and so is
 * each durable segment whose live chunks fell to a quarter of its records or fewer
 * ({@link SegmentEntries#isMostlyDead}: dropped and compacted files' chunks, taken out of the index by
 * the {@link DeadFileSweep}; those go first, whatever their past reads): a doomed segment keeps
 * serving until a later checkpoint is durable (one that no longer names it) and
 * the writer needs a segment; only then is it reclaimed, its read chunks kept for {@link Reinsertion}
 * and its entries taken out of the index by its summary, and it is free (or retired) once its reads
 * have ended. When a segment is needed and none is doomed, a batch is doomed at once, so that one
 * checkpoint releases them all (a checkpoint writes the whole index). Writer thread only; the count
 * is read from any thread.
 */
public final class Reclaimer {
    private final SegmentTable table;
    private final AddressSpaces spaces;
    private final ChunkLocations locations;
    private final ReclaimOrder order;
    private final SegmentEntries entries;
    private final int batch;
    private final SpaceBalancer balancer;
    private final Reinsertion reinsertion;
    /** The mostly dead segment found next, left for the caller to take; -1 when none is known. */
    private int deadNext = -1;
    /** Segments being reclaimed (or abandoned) whose reads had not ended when last looked at. */
    private final List<Integer> draining = new ArrayList<>();
    /** The last segment could not be had only because doomed segments wait for a checkpoint. */
    private boolean waitsForCheckpoint;
    private volatile long reclaimed;
    private volatile long mostlyDeadDoomed;
    private volatile long doomedForMoves;

    /**
     * @param entries  each segment's live chunks: which segments are mostly dead
     * @param batch    segments doomed at once when one is needed and none is doomed
     */
    public Reclaimer(SegmentTable table, AddressSpaces spaces, ChunkLocations locations,
                     ReclaimOrder order, SegmentEntries entries, int batch,
                     SpaceBalancer balancer, Reinsertion reinsertion) {
        this.table = table;
        this.spaces = spaces;
        this.locations = locations;
        this.order = order;
        this.entries = entries;
        this.batch = batch;
        this.balancer = balancer;
        this.reinsertion = reinsertion;
    }

    /**
     * A segment to open: a free one in the least loaded space, else a released doomed one reclaimed;
     * -1 when none can be had now (a reclaimed segment's reads or a freed one's discard have not
     * ended, or doomed segments wait for a checkpoint: {@link #waitsForCheckpoint}).
     */
    public int segmentToOpen() {
        waitsForCheckpoint = false;
        int segment = balancer.openFree();
        while (segment == -1) {
            if (!draining.isEmpty()) {
                return -1; // a reclaimed segment's reads end first
            } else if (!reclaimReleased()) {
                if (table.discarding() > 0) {
                    return -1; // a freed segment's discard ends first
                }
                // Doom a batch if the order gave none up; a checkpoint then releases them.
                if (table.waitingForCheckpoint() == 0) {
                    doomBatch();
                }
                waitsForCheckpoint = table.waitingForCheckpoint() > 0;
                return -1;
            }
            segment = balancer.openFree();
        }
        if (table.discardsAny() && table.discarding() == 0 && draining.isEmpty() && noneFree()) {
            // The next segment's reclaim and discard run while this one fills, so that the writer
            // does not wait on them: its chunks stop being served one segment early.
            reclaimReleased();
        }
        return segment;
    }

    private boolean noneFree() {
        for (int space = 0; space < table.spaces(); space++) {
            if (table.freeSegments(space) > 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether the last {@link #segmentToOpen} found none only because doomed segments wait for a checkpoint. */
    public boolean waitsForCheckpoint() {
        return waitsForCheckpoint;
    }

    /**
     * A segment's write ended well: it joins the order (or, mostly dead already, goes first), and
     * whatever the order gave up for it is doomed.
     */
    public void written(int segment) {
        order.written(segment);
        if (entries.isMostlyDead(segment)) {
            entries.queue(segment); // its chunks died while it was open or being written
        }
        doomEvicted();
    }

    /** Dooms the segments found mostly dead (after the dead file sweep, or a recovered segment's summary). */
    public void doomMostlyDead() {
        doomEvicted();
    }

    /** The next durable segment found mostly dead, left for the caller to take; or -1. */
    int nextDead() {
        while (deadNext == -1 || table.state(deadNext) != SegmentState.DURABLE || !entries.isMostlyDead(deadNext)) {
            // (one found earlier may have been reclaimed, or reused for live chunks, since)
            deadNext = entries.takeMostlyDead();
            if (deadNext == -1) {
                return -1;
            }
        }
        return deadNext;
    }

    /** The records {@code summary} names in {@code segment} leave the index (entries that still point there). */
    public void dropRecords(int segment, SegmentSummary summary) {
        int space = table.space(segment);
        int at = table.index(segment);
        for (int i = 0; i < summary.count(); i++) {
            locations.dropped(summary.keys()[i], spaces.layout(space).address(space, at, summary.sectors()[i]));
        }
    }

    /** An abandoned segment (its write failed and the device let go of it): retired once its reads end. */
    public void drain(int segment) {
        draining.add(segment);
        retireDrained();
    }

    /** Retires the segments being reclaimed whose reads have ended; the others are looked at next time. */
    public void retireDrained() {
        for (Iterator<Integer> it = draining.iterator(); it.hasNext(); ) {
            if (table.finishReclaim(it.next())) {
                it.remove();
            }
        }
    }

    /** Segments reclaimed. */
    public long reclaimed() {
        return reclaimed;
    }

    /** Segments doomed before the order's turn because a quarter of their records or fewer were live. */
    public long mostlyDeadDoomed() {
        return mostlyDeadDoomed;
    }

    /**
     * Dooms each segment the order gave up as it took a new one, and the segments found mostly dead
     * (every one with no live chunk; of the others, a batch at most waiting for a checkpoint): one at
     * a time, chosen by the order's own eviction as it goes, each serving until a checkpoint has
     * released it and the writer needs it. (The order's room is a batch short of every
     * segment, so that the doomed have room to wait.)
     */
    private void doomEvicted() {
        while (order.hasEvicted()) {
            int victim = order.victim();
            // Only durable segments are in the order, and only the writer changes a state: always true.
            if (victim != -1 && table.state(victim) == SegmentState.DURABLE) {
                table.doom(victim);
            }
        }
        // Those with no live chunk all at once: nothing of theirs is read or reinserted when they are
        // reclaimed, so one checkpoint frees a dropped table's flash, however much. (Where that names
        // more segments changed since the last full checkpoint than a delta may, it is a full one: in
        // steps when the schedule starts it, whole when the writer needs a segment first.)
        for (int empty = entries.takeEmpty(); empty != -1; empty = entries.takeEmpty()) {
            if (table.state(empty) == SegmentState.DURABLE && order.take(empty)) {
                table.doom(empty);
                mostlyDeadDoomed++;
            }
        }
        // Of the others at most a batch waiting for a checkpoint: their live chunks are lost or
        // reinserted, so a drop that leaves many dooms the rest as checkpoints release these.
        for (int dead = nextDead(); dead != -1 && table.waitingForCheckpoint() < batch; dead = nextDead()) {
            deadNext = -1;
            if (order.take(dead)) {
                table.doom(dead);
                mostlyDeadDoomed++; // the writer's alone: no lost update
            }
        }
    }

    /**
     * Dooms the coldest durable segments of {@code space}, as the order ranks them, until
     * {@code wanted} of its segments are free or on their way to it (doomed, reclaimed, retired or
     * being discarded), so that hot chunks moved off a loaded space find room in a full one: the
     * paper's exchange, the target's coldest chunks given up for the source's hottest (a checkpoint
     * releases them, {@link #reclaimReleasedIn} reclaims them for a move; their read chunks are kept
     * for {@link Reinsertion} as in any reclaim). At most half a batch (at least one) waits for a
     * checkpoint, so that the segments the dead file sweep finds mostly dead still go first.
     */
    public void makeRoom(int space, int wanted) {
        int waitingAtMost = Math.max(1, batch / 2);
        int missing = Math.min(wanted - comingFree(space), waitingAtMost - table.waitingForCheckpoint());
        if (missing <= 0) {
            return;
        }
        for (int victim : order.coldest(segment -> table.space(segment) == space, missing)) {
            // Only durable segments are in the order, and only the writer changes a state: always durable.
            if (table.state(victim) == SegmentState.DURABLE && order.take(victim)) {
                table.doom(victim);
                doomedForMoves++; // the writer's alone: no lost update
            }
        }
    }

    /**
     * Reclaims a released segment of a space {@code allowed} accepts, the least loaded of them (none
     * while a reclaimed segment's reads have not ended): free once its reads end (after its discard,
     * where that is on). Returns whether it took one.
     */
    public boolean reclaimReleasedIn(IntPredicate allowed) {
        return draining.isEmpty() && reclaimReleased(allowed);
    }

    /** Segments of {@code space} free, or to be free without the order giving any more up. */
    private int comingFree(int space) {
        return table.segmentsIn(space) - table.count(space, SegmentState.OPEN) - table.count(space, SegmentState.SEALED)
                - table.count(space, SegmentState.DURABLE);
    }

    /** Segments doomed to make room for hot chunk moves ({@link #makeRoom}). Any thread. */
    public long doomedForMoves() {
        return doomedForMoves;
    }

    /** Dooms a batch of segments when one is needed and none is doomed (the order gave none up of its own accord). */
    private void doomBatch() {
        for (int i = 0; i < batch; i++) {
            int victim = nextVictim();
            if (victim == -1) {
                break;
            }
            table.doom(victim);
        }
    }

    /**
     * Reclaims a released doomed segment, from the space read least since the last segment opened
     * (ties: the most released), of those with no segment waiting for its discard; false when none has one.
     */
    private boolean reclaimReleased() {
        return reclaimReleased(space -> true);
    }

    /** As {@link #reclaimReleased()}, in a space {@code allowed} accepts. */
    private boolean reclaimReleased(IntPredicate allowed) {
        // Not in a space whose freed segment still waits for its discard: one at a time there.
        int space = balancer.leastLoaded(s -> !allowed.test(s) || table.discarding(s) > 0 ? 0 : table.releasedSegments(s));
        if (space == -1) {
            return false;
        }
        reclaim(table.takeReleased(space));
        return true;
    }

    /**
     * Reclaims now up to {@code max} released segments that hold no live chunk (a dropped table's,
     * say): free (and discarded, where that is on) without waiting for the writer to need them. With
     * no chunk to keep or take out of the index, no summary is read. Returns whether more are left.
     */
    public boolean reclaimEmptyReleased(int max) {
        int left = max;
        for (int space = 0; space < table.spaces() && left > 0; space++) {
            if (table.releasedSegments(space) == 0) {
                continue;
            }
            for (int segment : table.takeReleased(space, s -> entries.live(s) == 0, left)) {
                table.startReclaim(segment);
                entries.emptied(segment);
                draining.add(segment);
                reclaimed++;
                left--;
            }
        }
        retireDrained();
        return left == 0;
    }

    /** Takes out of the order a durable mostly dead segment if there is one, else the one it names; -1 when none. */
    private int nextVictim() {
        int victim = -1;
        for (int dead = nextDead(); dead != -1 && victim == -1; dead = nextDead()) {
            deadNext = -1;
            victim = order.take(dead) ? dead : -1;
        }
        if (victim != -1) {
            mostlyDeadDoomed++; // doomed by the caller
        }
        return victim == -1 ? order.victim() : victim;
    }

    /**
     * Takes a released doomed segment's chunks out of the index, keeping those to be reinserted; it is
     * free (or retired) once its reads have ended.
     */
    private void reclaim(int victim) {
        table.startReclaim(victim);
        // Once started, the reclaim ends whatever its summary holds: a segment left reclaiming would
        // never be free again.
        draining.add(victim);
        reclaimed++;
        SegmentSummary summary = spaces.summaryOrNull(table, victim);
        if (summary != null) {
            reinsertion.keepReadChunks(victim, summary);
            dropRecords(victim, summary);
        } else {
            int space = table.space(victim);
            SegmentLayout layout = spaces.layout(space);
            int at = table.index(victim);
            locations.droppedWhere(address -> RecordAddress.space(address) == space && layout.contains(address)
                    && layout.index(address) == at);
        }
        entries.emptied(victim);
        retireDrained();
    }
}

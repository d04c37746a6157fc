package io.flashchunk.cache.write;

import io.flashchunk.cache.checkpoint.CheckpointSchedule;
import io.flashchunk.cache.format.ChunkForm;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.format.SegmentSummary;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.index.ChunkLocations;
import io.flashchunk.cache.index.SegmentEntries;
import io.flashchunk.cache.reclaim.DeadFileSweep;
import io.flashchunk.cache.reclaim.ReclaimOrder;
import io.flashchunk.cache.reclaim.Reclaimer;
import io.flashchunk.cache.reclaim.Reinsertion;
import io.flashchunk.cache.reclaim.SegmentSamples;
import io.flashchunk.cache.reclaim.VictimPublisher;
import io.flashchunk.cache.space.AddressSpaces;
import io.flashchunk.cache.space.HotChunkMoves;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.cache.space.SpaceBalancer;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongPredicate;

/**
 * The write queue's second stage, and the place where a miss becomes a flash write
 * ({@link #append}): it appends records to the open segment and points the index at them, writes
 * each full window of the segment while the next window fills, and seals a full segment, writing
 * the rest of its records and then its summary (two buffers, each a window of a segment; one write
 * in flight at a time, so the block two windows share is written by each in turn; {@link #persist}
 * writes the open segment's records so far and their summary for a checkpoint, and the next write
 * starts where that one ended). A segment to open comes from the {@link Reclaimer} (a free one in
 * the space the {@link SpaceBalancer} picks, or a released doomed one reclaimed); once it opens, the
 * chunks {@link Reinsertion} kept are appended first and the {@link VictimPublisher} tells admission
 * what the next reclaim would drop. Every method runs on the writer's thread, and none waits longer
 * than the device timeout.
 *
 * <p>Faults cost cached chunks, never correctness or progress: a failed write's chunks leave the
 * index; a buffer whose write has not ended (a hung device) is set aside until it does, and while no
 * buffer is free nothing is cached; a segment whose reads have not ended is retired later.
 *
 * <p>When no segment can be had because doomed segments wait for a checkpoint
 * ({@link #waitsForCheckpoint}), {@link Writer} writes one; chunks are not cached meanwhile.
 */
public final class SegmentWriter {
    private final SegmentTable table;
    private final AddressSpaces spaces;
    private final ChunkLocations locations;
    private final ReclaimOrder order;
    private final SpaceBalancer balancer;
    /** Moves of hot chunks off loaded spaces, or null: none. */
    private final HotChunkMoves moves;
    private final Reinsertion reinsertion;
    private final Reclaimer reclaimer;
    private final VictimPublisher victims;
    private final SegmentSamples samples;
    private final SegmentEntries entries;
    private final DeadFileSweep sweep;
    private final LongPredicate liveKey;
    private final int segmentBytes;
    private final SegmentBuffer[] buffers;
    private final ArrayDeque<SegmentBuffer> freeBuffers = new ArrayDeque<>();
    /** Buffers whose write failed but has not ended: the device still reads them. */
    private final List<Parked> parked = new ArrayList<>();
    private SegmentBuffer open;
    private SegmentBuffer writing;
    private CompletableFuture<Void> write;
    /** Whether {@link #writing} is a full window of the open segment, not a sealed segment's end. */
    private boolean writingWindow;
    // Counters: the writer thread alone changes them; volatile so statistics read them whole and current.
    private volatile long appended;
    private volatile long sealedForMoves;
    private volatile long appendedBytes;
    private volatile long failedWrites;
    private volatile int sealed;
    /** Segments the moves fill between two checkpoints for doomed space (their spacing), and one more. */
    private final int roomForMovesByRate;
    /** Segments whose release pays for a checkpoint for doomed space ({@link #roomForMovesAtLeast}). */
    private int roomForMovesToPayBack;
    /** The moves' tick at which room was last looked at: once a tick, since a look may walk the order. */
    private int roomMadeAtTick = -1;

    /** A failed write that has not ended: its buffer and its segment wait until it does. */
    private static final class Parked {
        private final SegmentBuffer buffer;
        private final CompletableFuture<Void> write;
        private final int segment;

        private Parked(SegmentBuffer buffer, CompletableFuture<Void> write, int segment) {
            this.buffer = buffer;
            this.write = write;
            this.segment = segment;
        }

        public SegmentBuffer buffer() {
            return buffer;
        }

        public CompletableFuture<Void> write() {
            return write;
        }

        public int segment() {
            return segment;
        }

        @Override
        public String toString() {
            return "Parked[buffer=" + buffer + ", write=" + write + ", segment=" + segment + "]";
        }
    }

    /**
     * @param buffers two buffers for the segment size (windows of it, or whole segments): one fills
     *                while the other is written
     */
    public SegmentWriter(SegmentTable table, AddressSpaces spaces, ChunkIndex index,
                         ReclaimOrder order, SegmentBuffer[] buffers) {
        this(table, spaces, index, order, buffers, WriterPolicy.NONE);
    }

    /** @param policy admission's victims and reinsertion ({@link WriterPolicy}) */
    public SegmentWriter(SegmentTable table, AddressSpaces spaces, ChunkIndex index,
                         ReclaimOrder order, SegmentBuffer[] buffers, WriterPolicy policy) {
        if (spaces.count() != table.spaces() || buffers.length != 2) {
            throw new IllegalArgumentException(table.spaces() + " spaces in the table, " + spaces.count()
                    + " address spaces, " + buffers.length + " buffers (2 needed)");
        }
        for (int space = 0; space < spaces.count(); space++) {
            if (spaces.layout(space).segments() != table.segmentsIn(space)) {
                throw new IllegalArgumentException("space " + space + "'s layout does not match the segment table");
            }
        }
        segmentBytes = spaces.segmentBytes();
        for (SegmentBuffer buffer : buffers) {
            if (buffer.segmentBytes() != segmentBytes) {
                throw new IllegalArgumentException("a buffer for " + buffer.segmentBytes() + "-byte segments, not "
                        + segmentBytes);
            }
        }
        this.table = table;
        this.spaces = spaces;
        this.entries = new SegmentEntries(table.segments(), address -> {
            int space = RecordAddress.space(address);
            return space < spaces.count() && spaces.layout(space).contains(address)
                    ? table.segment(space, spaces.layout(space).index(address)) : -1;
        });
        this.locations = new ChunkLocations(index, entries);
        this.sweep = new DeadFileSweep(locations);
        this.order = order;
        this.buffers = buffers.clone();
        // Keys whose chunks may still be served: the others leave the index, and are never reinserted.
        this.liveKey = policy.liveKey() != null ? policy.liveKey() : key -> true;
        this.samples = new SegmentSamples(table.segments());
        this.balancer = new SpaceBalancer(table, policy.load(), policy.moves());
        this.moves = policy.moves();
        this.roomForMovesByRate = moves == null ? 0
                : moves.segmentsFilledIn(CheckpointSchedule.DOOMED_SPACE_SPACING_MILLIS, segmentBytes) + 1;
        this.reinsertion = new Reinsertion(table, spaces, index, policy.admission(), liveKey,
                (long) (policy.reinsertShare() * segmentBytes), policy.storeUncompressed());
        this.reclaimer = new Reclaimer(table, spaces, locations, order, entries,
                policy.reclaimBatch(), balancer, reinsertion);
        this.victims = new VictimPublisher(table, spaces, order, policy.admission(), samples, reclaimer,
                this::readRecovered);
        freeBuffers.addAll(List.of(buffers));
    }

    /**
     * Writes {@code chunk} (position to limit, left unchanged) as the chunk of {@code key}; returns
     * false when it is not cached (its file died since it was offered, larger than a segment, or no
     * segment or buffer to be had now).
     */
    public boolean append(long key, ByteBuffer chunk) {
        return append(key, chunk, ChunkForm.RAW);
    }

    /** As {@link #append(long, ByteBuffer)} for a chunk whose payload in {@code form} is {@code chunk}. */
    public boolean append(long key, ByteBuffer chunk, ChunkForm form) {
        if (!liveKey.test(key)) {
            return false; // its file's sweep may have run already: it would stay on flash, counted live
        }
        if (!chunk.hasRemaining() || chunk.remaining() > RecordFormat.MAX_CHUNK_BYTES
                || RecordFormat.recordBytes(chunk.remaining(), RecordAddress.MAX_SECTOR_BYTES) + SegmentSummary.bytes(1)
                > segmentBytes) {
            return false; // a window holds any record of a chunk up to the largest (SegmentBuffer's minimum)
        }
        if (open == null && !openSegment()) {
            return false;
        }
        int sector = appendToOpen(key, chunk, form);
        if (sector == SegmentBuffer.SEGMENT_FULL) {
            sealOpen();
            if (!openSegment()) {
                return false;
            }
            sector = appendToOpen(key, chunk, form);
        }
        if (sector < 0) {
            return false; // chunks kept for reinsertion filled the new segment first, or no buffer for a window
        }
        place(key, sector);
        appended++;
        appendedBytes += chunk.remaining();
        return true;
    }

    /**
     * Writes again the chunk of {@code key} (position to limit, left unchanged) that a hit read from
     * the record at {@code from}, in use {@code sequence} of its segment, to take its reads off a
     * loaded space ({@link HotChunkMoves}): only while the index still points at that record (not
     * invalidated, reclaimed or moved since: the bytes are the current chunk's), and only into an
     * open segment of a space {@link HotChunkMoves#lessLoaded} than {@code from}'s. Returns whether
     * it did; the record at {@code from} is then dead.
     *
     * <p>Where it goes: the open segment, if it is in such a space and has room; else a new segment,
     * opened only when such a space (and no space chunks are moved off) has a free one, so that it
     * opens there ({@link SpaceBalancer}). When none has, a released segment of such a space is
     * reclaimed first (free once its reads end). A segment open in a space chunks are moved off is
     * then sealed part full (on a cache mostly read it could stay open for long, and no move would
     * be made meanwhile); the next opens elsewhere, so this seals no segment opened after it, and
     * never an empty one. Once a tick of the moves, their {@link HotChunkMoves#target} is made room
     * in when it has fewer segments free or on their way to it than {@link #roomForMoves}
     * ({@link Reclaimer#makeRoom}: its coldest segments doomed, for a checkpoint to release).
     */
    public boolean move(long key, ByteBuffer chunk, ChunkForm form, long from, long sequence) {
        if (moves == null || !stillAt(key, from, sequence) || !liveKey.test(key)) {
            return false;
        }
        int source = RecordAddress.space(from);
        if (moves.ticks() != roomMadeAtTick) {
            roomMadeAtTick = moves.ticks();
            int target = moves.target();
            if (target != -1 && moves.lessLoaded(target, source)) {
                reclaimer.makeRoom(target, roomForMoves());
            }
        }
        if (open != null && moves.lessLoaded(table.space(open.segment()), source)) {
            if (open.fits(chunk.remaining())) {
                return append(key, chunk, form);
            }
            sealOpen(); // full: the move needs the next segment
        }
        if (open != null && (open.records() == 0 || !moves.source(table.space(open.segment())))) {
            return false; // left to fill: an empty one would be wasted, another space's is not the moves' to seal
        }
        if (!freeToMoveTo(source)) {
            reclaimer.reclaimReleasedIn(space -> !moves.source(space) && moves.lessLoaded(space, source));
            if (!freeToMoveTo(source)) {
                return false; // the released one's reads (or discard) end first, or none is released yet
            }
        }
        if (open != null) {
            int before = sealed;
            sealOpen();
            if (sealed != before) {
                sealedForMoves++;
            }
        }
        // The segment opened for it must be checked like the open one (and its reinsertions may have
        // placed the key already, or filled it).
        if (open == null && (!openSegment() || !stillAt(key, from, sequence))) {
            return false;
        }
        if (!moves.lessLoaded(table.space(open.segment()), source) || !open.fits(chunk.remaining())) {
            return false;
        }
        return append(key, chunk, form);
    }

    /** Whether the index points {@code key} at {@code address}, in use {@code sequence} of its segment. */
    private boolean stillAt(long key, long address, long sequence) {
        if (locations.index().find(key) != address) {
            return false;
        }
        int space = RecordAddress.space(address);
        return table.sequence(table.segment(space, spaces.layout(space).index(address))) == sequence;
    }

    /**
     * Whether a space hot chunks of {@code source} may move to, and none are moved off, has a free
     * segment: the next segment opened is then sure to be outside the spaces chunks are moved off.
     */
    private boolean freeToMoveTo(int source) {
        reclaimer.retireDrained(); // a reclaimed segment whose last read ended since is free now
        for (int space = 0; space < table.spaces(); space++) {
            if (table.freeSegments(space) > 0 && !moves.source(space) && moves.lessLoaded(space, source)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Segments the moves' target keeps free or on their way to it: what the moves fill between two
     * checkpoints for doomed space, and at least what makes such a checkpoint pay for itself
     * ({@link #roomForMovesAtLeast}).
     */
    private int roomForMoves() {
        return Math.max(roomForMovesByRate, roomForMovesToPayBack);
    }

    /**
     * A checkpoint for doomed space is due only once the segments it releases outweigh its cost
     * ({@link CheckpointSchedule#segmentsPayingBack}): the room made for moves is at least that many,
     * else the segments doomed for it would wait for a checkpoint by count or time. Writer thread.
     */
    public void roomForMovesAtLeast(int segments) {
        roomForMovesToPayBack = segments;
    }

    /** Segments doomed to make room for hot chunks moved off a loaded space. Any thread. */
    public long doomedForMoves() {
        return reclaimer.doomedForMoves();
    }

    /**
     * Segments doomed ahead of the order's need, which only a checkpoint releases: those mostly dead,
     * and those doomed to make room for moves. Any thread.
     */
    public long doomedAhead() {
        return reclaimer.mostlyDeadDoomed() + reclaimer.doomedForMoves();
    }

    /** Segments sealed part full because they were open in a space hot chunks were being moved off. */
    public long sealedForMoves() {
        return sealedForMoves;
    }

    /**
     * Appends to the open segment, moving on to a new window of it when the one filling is full;
     * returns the record's sector, {@link SegmentBuffer#SEGMENT_FULL}, or {@link SegmentBuffer#WINDOW_FULL}
     * when no buffer could take the next window (the chunk is not cached; a failed write of the
     * window just full leaves no open segment).
     */
    private int appendToOpen(long key, ByteBuffer chunk, ChunkForm form) {
        int sector = open.append(key, chunk, form);
        if (sector != SegmentBuffer.WINDOW_FULL) {
            return sector;
        }
        if (!nextWindow()) {
            return SegmentBuffer.WINDOW_FULL;
        }
        return open.append(key, chunk, form);
    }

    /**
     * Writes the open segment's full window and goes on filling the segment in the other buffer,
     * once the write before it has ended (one write at a time: the block both windows share is
     * written by each in turn). False when that write failed (the segment is abandoned) or no buffer
     * is free.
     */
    private boolean nextWindow() {
        finishWrite();
        unpark();
        if (open == null || freeBuffers.isEmpty()) {
            return false;
        }
        int segment = open.segment();
        SegmentBuffer.Part part = open.windowPart();
        SegmentBuffer next = freeBuffers.poll();
        next.continueFrom(open);
        writing = open;
        writingWindow = true;
        open = next;
        // Nothing to write when a checkpoint's write just put the window's records on flash, ending on a block.
        write = part == null ? CompletableFuture.completedFuture(null) : startWrite(segment, part);
        return true;
    }

    /** Points the index at the record just appended at {@code sector} of the open segment. */
    private void place(long key, int sector) {
        int segment = open.segment();
        int space = table.space(segment);
        locations.placed(key, spaces.layout(space).address(space, table.index(segment), sector));
        samples.appended(segment, key);
        sweep.onFlash(key);
    }

    /**
     * Seals the open segment, if it holds anything, and waits for its write and for failed writes the
     * device still holds, each at most the device timeout.
     */
    public void flush() {
        if (open != null && open.records() > 0) {
            sealOpen();
        }
        finishWrite();
        for (Parked p : parked) {
            try {
                spaces.driver(table.space(p.segment())).await(p.write(), "failed write of segment " + p.segment());
            } catch (IOException e) {
                // failed already; only its end matters here
            }
        }
        unpark();
    }

    /**
     * The chunk of {@code key} changed (an invalidation the engine is taking out of the index): a copy
     * read back from a reclaimed segment and still waiting for a segment to be appended to is dropped,
     * or it would put the old bytes back. Its entry had left the index when its segment was reclaimed,
     * so the index holds nothing for the invalidation to remove; without this the copy outlives it
     * whenever no segment could be opened right after the reclaim (one waits for a checkpoint, or a
     * read still holds the reclaimed segment).
     */
    public void forget(long key) {
        reinsertion.forget(key);
    }

    /**
     * The use of the segment the next record goes into: the open one's, or, with none open, the
     * sequence the next segment opened gets at the least. With {@link #nextRecordSector}, the place
     * of the next record in the order of appends: one segment is open at a time, in every space, and
     * each opened gets a higher sequence, so a record appended later is at a higher (sequence, sector).
     */
    public long nextRecordSequence() {
        return open != null ? open.sequence() : table.nextSequence();
    }

    /** The sector of its segment the next record goes at (0 with no segment open). */
    public int nextRecordSector() {
        return open != null ? open.nextSector() : 0;
    }

    /**
     * {@code key}'s chunk changed in its file, or its record is damaged: its entry leaves the index
     * and its copy kept for reinsertion is dropped ({@link #forget}).
     */
    public void invalidate(long key) {
        locations.forget(key);
        reinsertion.forget(key);
    }

    /**
     * Files died (compacted away, dropped, changed): their chunks leave the index in the coming
     * {@link #sweepDeadFiles} steps, and the segments that leaves mostly dead go first, whatever the
     * order thinks of their past reads.
     */
    public void filesDied(int... fileIds) {
        for (int id : fileIds) {
            sweep.died(id);
        }
    }

    /** Whether dead files' chunks are left for {@link #sweepDeadFiles} to take out of the index. */
    public boolean deadFilesPending() {
        return sweep.pending();
    }

    /**
     * Looks up at most {@code max} keys of the files died, taking those found out of the index; once
     * none is left, dooms the segments that left mostly dead and publishes admission's victims again
     * (a dead segment next: none). Returns whether keys are left to look up.
     */
    public boolean sweepDeadFiles(int max) {
        if (sweep.sweep(max)) {
            return true;
        }
        reclaimer.doomMostlyDead();
        if (open != null) {
            victims.publish(); // the victims published when the open segment opened may be of dead files
        }
        return false;
    }

    /**
     * Reclaims up to {@code max} released segments that hold no live chunk (after a checkpoint
     * released them): their space is free at once rather than when the writer next needs a segment.
     * Returns whether more may be left.
     */
    public boolean reclaimEmptyReleased(int max) {
        boolean more = reclaimer.reclaimEmptyReleased(max);
        reclaimer.doomMostlyDead(); // those a batch's bound held back, now that the batch is released
        return more;
    }

    /** Chunks of dead files taken out of the index by {@link #sweepDeadFiles}. */
    public long deadFilesChunksRemoved() {
        return sweep.removed();
    }

    /** Dead files whose keys are still being looked up. Any thread. */
    public int deadFilesPendingCount() {
        return sweep.pendingFiles();
    }

    /** Segments doomed before the order's turn because mostly dead. Any thread. */
    public long mostlyDeadDoomed() {
        return reclaimer.mostlyDeadDoomed();
    }

    /** Each segment's live chunks against its records. */
    public SegmentEntries entries() {
        return entries;
    }

    /**
     * Recovery filled the index (before the writer starts): each segment's live chunks are counted
     * from it, to be weighed against the records its summary names as {@link #sampleRecovered} reads it.
     */
    public void recovered() {
        entries.count(locations.index());
    }

    /**
     * Draws samples for up to {@code max} durable segments that have none (the segments recovery
     * brought back: samples are drawn as chunks are appended, and a restart starts without them),
     * from their summaries, one read each; returns whether segments are left to look at. Without
     * samples a recovered segment of dead files' chunks is found only when the order reaches it, so
     * it would keep live chunks out of flash until then. A segment whose summary does not check stays
     * without samples and goes in the order's turn; a device that fails or times out ends the pass.
     * One pass after a start.
     */
    public boolean sampleRecovered(int max) {
        VictimPublisher.Pass pass = victims.sampleRecovered(max);
        if (pass.foundDead() && open != null) {
            victims.publish(); // a dead segment may go next
        }
        return pass.more();
    }

    /**
     * What a recovered segment's summary tells besides samples: how many records it holds, which
     * files' extents its keys widen, and which of its chunks are of files that died (changed while
     * the cache was down, or since): those leave the index. Returns whether it is mostly dead.
     */
    private boolean readRecovered(int segment, SegmentSummary summary) {
        entries.recordsAre(segment, summary.count());
        int space = table.space(segment);
        int at = table.index(segment);
        for (int i = 0; i < summary.count(); i++) {
            long key = summary.keys()[i];
            if (liveKey.test(key)) {
                sweep.onFlash(key);
            } else {
                locations.dropped(key, spaces.layout(space).address(space, at, summary.sectors()[i]));
            }
        }
        return entries.isMostlyDead(segment);
    }

    /** The buffers readers look in for chunks not yet on flash. */
    public SegmentBuffer[] buffers() {
        return buffers.clone();
    }

    public long appended() {
        return appended;
    }

    /** The chunk bytes of the chunks {@link #appended}. */
    long appendedBytes() {
        return appendedBytes;
    }

    public long reclaimed() {
        return reclaimer.reclaimed();
    }

    public long failedWrites() {
        return failedWrites;
    }

    /** Segments sealed (and handed to the device) so far. */
    public int sealed() {
        return sealed;
    }

    /** Chunks written again from reclaimed segments. */
    public long reinserted() {
        return reinsertion.reinserted();
    }

    /**
     * Whether the last append found no segment to open only because doomed (or retired) segments
     * wait for a checkpoint, which would release them: not when a read still holds a reclaimed one,
     * or no buffer is free.
     */
    public boolean waitsForCheckpoint() {
        return reclaimer.waitsForCheckpoint();
    }

    /** Opens a segment in a free buffer, reclaiming one first when none is free; false when none can be had. */
    private boolean openSegment() {
        unpark();
        if (freeBuffers.isEmpty()) {
            finishWrite();
            unpark();
            if (freeBuffers.isEmpty()) {
                return false;
            }
        }
        int segment = reclaimer.segmentToOpen();
        if (segment == -1) {
            return false;
        }
        open = freeBuffers.poll();
        open.start(segment, table.sequence(segment), spaces.layout(table.space(segment)).sectorBytes());
        order.opened(segment);
        samples.opened(segment);
        entries.opened(segment);
        victims.publish();
        reinsertKept();
        return open != null; // a failed write of a window of the kept chunks abandons the segment
    }

    /** Appends the chunks kept from reclaimed segments to the segment just opened, as far as they fit. */
    private void reinsertKept() {
        for (Reinsertion.Kept kept = reinsertion.next(); kept != null && open != null; kept = reinsertion.next()) {
            int sector = appendToOpen(kept.key(), kept.chunk(), kept.form());
            if (sector < 0) {
                return;
            }
            place(kept.key(), sector);
            reinsertion.appended();
        }
    }

    private void sealOpen() {
        finishWrite();
        if (open == null) {
            return; // abandoned: the write of an earlier window of it failed
        }
        sealed++;
        int segment = open.segment();
        List<SegmentBuffer.Part> parts = open.seal();
        table.seal(segment);
        writing = open;
        writingWindow = false;
        open = null;
        CompletableFuture<?>[] writes = new CompletableFuture<?>[parts.size()];
        for (int i = 0; i < writes.length; i++) {
            writes[i] = startWrite(segment, parts.get(i));
        }
        write = CompletableFuture.allOf(writes); // ends when every part's does: the buffer is the device's till then
    }

    /** Starts writing {@code part} of {@code segment}; a write that cannot start is a failed one. */
    private CompletableFuture<Void> startWrite(int segment, SegmentBuffer.Part part) {
        int space = table.space(segment);
        long lba = spaces.layout(space).lba(table.index(segment)) + part.offset() / BlockDevice.BLOCK_SIZE;
        try {
            return spaces.driver(space).write(lba, part.bytes());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(new IOException("interrupted writing segment " + segment, e));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Puts every chunk appended so far on flash without sealing the open segment, so that a
     * checkpoint now names them all: waits for the segment being written, then writes the open
     * segment's records not yet written and a summary of them ({@link SegmentBuffer#unwrittenPrefix})
     * and tells the {@link SegmentTable} how far it is written. If that write fails, the open
     * segment's chunks leave the index as a failed segment write's do.
     */
    public void persist() {
        finishWrite();
        if (open == null) {
            return;
        }
        int segment = open.segment();
        int space = table.space(segment);
        CompletableFuture<Void> pending = CompletableFuture.completedFuture(null);
        try {
            for (SegmentBuffer.Part part : open.unwrittenPrefix()) {
                pending = startWrite(segment, part);
                spaces.driver(space).await(pending, "write of open segment " + segment + "'s records so far");
            }
        } catch (IOException e) {
            failedWrites++;
            SegmentBuffer buffer = open;
            open = null;
            table.abandon(segment);
            dropWritten(segment, buffer, pending);
            return;
        }
        open.prefixWritten();
        table.prefixWritten(segment, open.fill() / spaces.layout(table.space(segment)).sectorBytes());
    }

    /**
     * Waits for the segment being written. On success it is durable; on failure its chunks leave the
     * index and it is retired, and its buffer is set aside until the device lets go of it.
     */
    private void finishWrite() {
        if (writing == null) {
            return;
        }
        SegmentBuffer buffer = writing;
        CompletableFuture<Void> pending = write;
        boolean window = writingWindow;
        writing = null;
        write = null;
        int segment = buffer.segment();
        int space = table.space(segment);
        boolean written;
        try {
            spaces.driver(space).await(pending, (window ? "write of a window of segment " : "write of segment ") + segment);
            written = true;
        } catch (IOException e) {
            written = false;
        }
        if (written && window) {
            // Before the buffer is reused: a reader that finds it holding something else reads flash.
            table.windowsWritten(segment, buffer.fill() / spaces.layout(space).sectorBytes());
            release(buffer);
            return;
        }
        if (written) {
            table.written(segment);
            reclaimer.written(segment);
            release(buffer);
            return;
        }
        failedWrites++;
        table.abandon(segment);
        if (window) {
            // The segment goes on in the open buffer: all its chunks leave the index, that buffer is free again.
            SegmentBuffer rest = open;
            open = null;
            reclaimer.dropRecords(segment, rest.summary());
            release(rest);
        }
        dropWritten(segment, buffer, pending);
    }

    /**
     * The chunks of an abandoned segment whose write failed leave the index; its buffer and the
     * segment are reused only once the device lets go of the write.
     */
    private void dropWritten(int segment, SegmentBuffer buffer, CompletableFuture<Void> pending) {
        reclaimer.dropRecords(segment, buffer.summary());
        entries.emptied(segment);
        if (pending.isDone()) {
            release(buffer);
            reclaimer.drain(segment);
        } else {
            // The device may still write this buffer to the segment: neither is reused until it ends.
            parked.add(new Parked(buffer, pending, segment));
        }
    }

    private void release(SegmentBuffer buffer) {
        while (!buffer.tryReuse()) {
            Thread.onSpinWait(); // reads of memory take microseconds
        }
        freeBuffers.add(buffer);
    }

    private void unpark() {
        for (Iterator<Parked> it = parked.iterator(); it.hasNext(); ) {
            Parked p = it.next();
            if (p.write().isDone()) {
                it.remove();
                release(p.buffer());
                reclaimer.drain(p.segment());
            }
        }
        reclaimer.retireDrained();
    }
}

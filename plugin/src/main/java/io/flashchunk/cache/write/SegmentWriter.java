package io.flashchunk.cache.write;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.admission.VictimAdmission;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.format.SegmentSummary;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.index.ChunkLocations;
import io.flashchunk.cache.reclaim.ReclaimOrder;
import io.flashchunk.cache.reclaim.SegmentSamples;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.space.SegmentSummaries;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.cache.space.SpaceReads;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongPredicate;

/**
 * The engine's one writer, and the place where a miss becomes a flash write
 * ({@link #append}): it appends records to the open segment and points the index at them, writes
 * each full window of the segment while the next window fills, and seals a full segment, writing
 * the rest of its records and then its summary (two buffers, each a window of a segment: the write
 * queue's two stages; one write in flight at a time, so the block two windows share is written by
 * each in turn; {@link #persist} writes the open segment's records so far and their summary for a
 * checkpoint, and the next write starts where that one ended), and when no segment is free reclaims
 * the one the {@link ReclaimOrder} names, taking its chunks out of the index by the segment's
 * summary; chunks of it read since they were written are read back and appended again, up to the
 * {@link WriterPolicy}'s share of a segment. Every method runs on the writer's
 * thread, and none waits longer than the device timeout.
 *
 * <p>Faults cost cached chunks, never correctness or progress: a failed write's chunks leave the
 * index; a buffer whose write has not ended (a hung device) is set aside until it does, and while no
 * buffer is free nothing is cached; a segment whose reads have not ended is retired later.
 *
 * <p>Each segment the order gives up is doomed as it goes and keeps serving until a later
 * checkpoint is durable and the writer needs a segment: only then is it reclaimed, and free once its
 * reads are done (so flash waiting for a checkpoint still serves its chunks). When none is released,
 * a checkpoint must be written ({@link #waitsForCheckpoint}; {@link Writer} writes it); chunks are
 * not cached meanwhile.
 */
public final class SegmentWriter {
    private final SegmentTable table;
    private final SegmentLayout[] layouts;
    private final StorageDriver[] drivers;
    private final ChunkIndex index;
    private final ChunkLocations locations;
    private final ReclaimOrder order;
    private final VictimAdmission admission;
    private final long reinsertBytes;
    private final int reclaimBatch;
    /** The last segment could not be opened only because doomed segments wait for a checkpoint. */
    private boolean waitsForCheckpoint;
    /** Flash reads per space (null: spaces in turn), and the counts when the last segment opened. */
    private final SpaceReads load;
    private final long[] readsAtLastOpen;
    /** Keys whose chunks may still be served; segments of only the others go first, and they are never reinserted. */
    private final LongPredicate liveKey;
    /** Segments whose sampled chunks are all dead, reclaimed before the order's choice. */
    private final ArrayDeque<Integer> deadFirst = new ArrayDeque<>();
    /** Files died since the segments were last looked at for dead ones. */
    private boolean deadUnlooked;
    /** The next segment {@link #sampleRecovered} looks at; one pass over all of them after a start. */
    private int sampleCursor;
    /** Chunks of reclaimed segments read back for reinsertion, waiting for the next open segment. */
    private final ArrayDeque<Kept> kept = new ArrayDeque<>();
    private final SegmentSamples samples;
    private final int segmentBytes;
    private final SegmentBuffer[] buffers;
    private final ArrayDeque<SegmentBuffer> freeBuffers = new ArrayDeque<>();
    /** Buffers whose write failed but has not ended: the device still reads them. */
    private final List<Parked> parked = new ArrayList<>();
    /** Segments being reclaimed whose reads had not ended when last looked at. */
    private final List<Integer> draining = new ArrayList<>();
    private SegmentBuffer open;
    private SegmentBuffer writing;
    private CompletableFuture<Void> write;
    /** Whether {@link #writing} is a full window of the open segment, not a sealed segment's end. */
    private boolean writingWindow;
    private int nextSpace;
    // Counters: the writer thread alone changes them; volatile so statistics read them whole and current.
    private volatile long appended;
    private volatile long appendedBytes;
    private volatile long reclaimed;
    private volatile long failedWrites;
    private volatile long reinserted;
    private volatile int sealed;

    /** A chunk read back from a reclaimed segment, to be appended again. */
    private record Kept(long key, ByteBuffer chunk) {
    }

    /** A failed write that has not ended: its buffer and its segment wait until it does. */
    private record Parked(SegmentBuffer buffer, CompletableFuture<Void> write, int segment) {
    }

    /**
     * @param buffers two buffers for the segment size (windows of it, or whole segments): one fills
     *                while the other is written
     */
    public SegmentWriter(SegmentTable table, SegmentLayout[] layouts, StorageDriver[] drivers, ChunkIndex index,
                         ReclaimOrder order, SegmentBuffer[] buffers) {
        this(table, layouts, drivers, index, order, buffers, WriterPolicy.NONE);
    }

    /** @param policy admission's victims and reinsertion ({@link WriterPolicy}) */
    public SegmentWriter(SegmentTable table, SegmentLayout[] layouts, StorageDriver[] drivers, ChunkIndex index,
                         ReclaimOrder order, SegmentBuffer[] buffers, WriterPolicy policy) {
        if (layouts.length != table.spaces() || drivers.length != table.spaces() || buffers.length != 2) {
            throw new IllegalArgumentException(table.spaces() + " spaces, " + layouts.length + " layouts, "
                    + drivers.length + " drivers, " + buffers.length + " buffers (2 needed)");
        }
        segmentBytes = layouts[0].segmentBytes();
        for (int space = 0; space < layouts.length; space++) {
            if (layouts[space].segmentBytes() != segmentBytes || layouts[space].segments() != table.segmentsIn(space)) {
                throw new IllegalArgumentException("space " + space + "'s layout does not match the segment table");
            }
        }
        for (SegmentBuffer buffer : buffers) {
            if (buffer.segmentBytes() != segmentBytes) {
                throw new IllegalArgumentException("a buffer for " + buffer.segmentBytes() + "-byte segments, not "
                        + segmentBytes);
            }
        }
        this.table = table;
        this.layouts = layouts;
        this.drivers = drivers;
        this.index = index;
        this.locations = new ChunkLocations(index);
        this.order = order;
        this.buffers = buffers.clone();
        this.admission = policy.admission();
        this.reinsertBytes = (long) (policy.reinsertShare() * segmentBytes);
        this.reclaimBatch = policy.reclaimBatch();
        this.load = policy.load();
        this.liveKey = policy.liveKey() != null ? policy.liveKey() : key -> true;
        this.readsAtLastOpen = new long[table.spaces()];
        if (load != null && load.spaces() != table.spaces()) {
            throw new IllegalArgumentException(load.spaces() + " spaces' reads for " + table.spaces() + " spaces");
        }
        this.samples = new SegmentSamples(table.segments());
        freeBuffers.addAll(List.of(buffers));
    }

    /**
     * Writes {@code chunk} (position to limit, left unchanged) as the chunk of {@code key}; returns
     * false when it is not cached (larger than a segment, or no segment or buffer to be had now).
     */
    public boolean append(long key, ByteBuffer chunk) {
        if (!chunk.hasRemaining() || chunk.remaining() > RecordFormat.MAX_CHUNK_BYTES
                || RecordFormat.recordBytes(chunk.remaining()) + SegmentSummary.bytes(1) > segmentBytes) {
            return false; // a window holds any record of a chunk up to the largest (SegmentBuffer's minimum)
        }
        if (open == null && !openSegment()) {
            return false;
        }
        int sector = appendToOpen(key, chunk);
        if (sector == SegmentBuffer.SEGMENT_FULL) {
            sealOpen();
            if (!openSegment()) {
                return false;
            }
            sector = appendToOpen(key, chunk);
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
     * Appends to the open segment, moving on to a new window of it when the one filling is full;
     * returns the record's sector, {@link SegmentBuffer#SEGMENT_FULL}, or {@link SegmentBuffer#WINDOW_FULL}
     * when no buffer could take the next window (the chunk is not cached; a failed write of the
     * window just full leaves no open segment).
     */
    private int appendToOpen(long key, ByteBuffer chunk) {
        int sector = open.append(key, chunk);
        if (sector != SegmentBuffer.WINDOW_FULL) {
            return sector;
        }
        if (!nextWindow()) {
            return SegmentBuffer.WINDOW_FULL;
        }
        return open.append(key, chunk);
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
        locations.placed(key, layouts[space].address(space, table.index(segment), sector));
        samples.appended(segment, key);
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
                drivers[table.space(p.segment())].await(p.write(), "failed write of segment " + p.segment());
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
        kept.removeIf(chunk -> chunk.key() == key);
    }

    /**
     * Files died (compacted away, dropped): before the next reclaim, the durable segments whose sampled
     * chunks are all of dead files are found, and they go first, whatever the order thinks of their
     * past reads, and admission's victims are published again (a dead segment next: none). One look
     * however many files died since the last reclaim.
     */
    public void filesDied() {
        deadUnlooked = true;
        if (open != null) {
            publishVictims(); // the victims published when the open segment opened may be of dead files
        }
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
        int drawn = 0;
        boolean foundDead = false;
        while (drawn < max && sampleCursor < table.segments()) {
            int segment = sampleCursor++;
            if (table.state(segment) != SegmentState.DURABLE || samples.of(segment).length > 0) {
                continue;
            }
            drawn++;
            SegmentSummary summary;
            try {
                summary = summaryOf(segment);
            } catch (RecordMismatchException e) {
                continue; // a summary that does not check: the segment goes in the order's turn
            } catch (IOException e) {
                // A failing or hung device: the pass ends here, so the writer waits one device timeout at most.
                sampleCursor = table.segments();
                break;
            }
            sampleFrom(segment, summary);
            foundDead |= samples.noneLive(segment, liveKey);
        }
        if (foundDead) {
            filesDied(); // the same look for dead segments as after a death
        }
        return sampleCursor < table.segments();
    }

    /** The buffers readers look in for chunks not yet on flash. */
    public SegmentBuffer[] buffers() {
        return buffers.clone();
    }

    public long appended() {
        return appended;
    }

    /** The chunk bytes of the chunks {@link #appended}. */
    public long appendedBytes() {
        return appendedBytes;
    }

    public long reclaimed() {
        return reclaimed;
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
        return reinserted;
    }

    /**
     * Whether the last append found no segment to open only because doomed (or retired) segments
     * wait for a checkpoint, which would release them: not when a read still holds a reclaimed one,
     * or no buffer is free.
     */
    public boolean waitsForCheckpoint() {
        return waitsForCheckpoint;
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
        waitsForCheckpoint = false;
        int segment = openInSomeSpace();
        while (segment == -1) {
            if (!draining.isEmpty()) {
                return false; // a reclaimed segment's reads end first
            } else if (!reclaimReleased()) {
                // Doom a batch if the order gave none up; a checkpoint then releases them.
                if (table.waitingForCheckpoint() == 0) {
                    doomBatch();
                }
                waitsForCheckpoint = table.waitingForCheckpoint() > 0;
                return false;
            }
            segment = openInSomeSpace();
        }
        open = freeBuffers.poll();
        open.start(segment, table.sequence(segment));
        order.opened(segment);
        samples.opened(segment);
        publishVictims();
        reinsertKept();
        return open != null; // a failed write of a window of the kept chunks abandons the segment
    }

    /** Appends the chunks kept from reclaimed segments to the segment just opened, as far as they fit. */
    private void reinsertKept() {
        while (!kept.isEmpty() && open != null) {
            int sector = appendToOpen(kept.peek().key(), kept.peek().chunk());
            if (sector < 0) {
                return;
            }
            place(kept.poll().key(), sector);
            reinserted++;
        }
    }

    /**
     * Tells admission what the next reclaim would drop: nothing while a space has a free segment,
     * else a sample of the segment the order names next.
     */
    private void publishVictims() {
        if (admission == null) {
            return;
        }
        for (int space = 0; space < table.spaces(); space++) {
            if (table.freeSegments(space) > 0) {
                admission.victims(new long[0]);
                return;
            }
        }
        int next = nextDead();
        if (next != -1) {
            admission.victims(new long[0]); // a dead segment goes next: nothing live has to make room
            return;
        }
        // The order's next, not a doomed segment: those go whatever is admitted; an admission makes
        // the order give up its next one sooner.
        next = order.next();
        if (next != -1 && samples.of(next).length == 0 && table.state(next) == SegmentState.DURABLE) {
            // Recovered segments have no samples yet: draw them from the segment's summary.
            SegmentSummary summary = readSummary(next);
            if (summary != null) {
                sampleFrom(next, summary);
            }
        }
        admission.victims(next == -1 ? new long[0] : samples.of(next));
    }

    /**
     * Opens a free segment in the space read least since the last segment opened (ties, and without
     * a load: the space with the most free segments, then the next in turn); -1 when none is free.
     */
    private int openInSomeSpace() {
        int best = leastLoaded(table::freeSegments);
        if (best == -1) {
            return -1;
        }
        for (int space = 0; load != null && space < table.spaces(); space++) {
            readsAtLastOpen[space] = load.count(space);
        }
        nextSpace = (best + 1) % table.spaces();
        return table.open(best);
    }

    /**
     * Of the spaces with {@code available} segments, the one whose flash reads since the last
     * segment opened were fewest (ties: the most available, then the next in turn); -1 when none has any.
     */
    private int leastLoaded(java.util.function.IntUnaryOperator available) {
        int best = -1;
        long bestReads = 0;
        int bestAvailable = 0;
        for (int i = 0; i < table.spaces(); i++) {
            int space = (nextSpace + i) % table.spaces();
            int count = available.applyAsInt(space);
            if (count == 0) {
                continue;
            }
            long reads = load == null ? 0 : load.count(space) - readsAtLastOpen[space];
            if (best == -1 || reads < bestReads || (reads == bestReads && count > bestAvailable)) {
                best = space;
                bestReads = reads;
                bestAvailable = count;
            }
        }
        return best;
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
        long lba = layouts[space].lba(table.index(segment)) + part.offset() / BlockDevice.BLOCK_SIZE;
        try {
            return drivers[space].write(lba, part.bytes());
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
                drivers[space].await(pending, "write of open segment " + segment + "'s records so far");
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
        table.prefixWritten(segment, open.fill() / RecordAddress.SECTOR_BYTES);
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
            drivers[space].await(pending, (window ? "write of a window of segment " : "write of segment ") + segment);
            written = true;
        } catch (IOException e) {
            written = false;
        }
        if (written && window) {
            // Before the buffer is reused: a reader that finds it holding something else reads flash.
            table.windowsWritten(segment, buffer.fill() / RecordAddress.SECTOR_BYTES);
            release(buffer);
            return;
        }
        if (written) {
            table.written(segment);
            order.written(segment);
            doomEvicted();
            release(buffer);
            return;
        }
        failedWrites++;
        table.abandon(segment);
        if (window) {
            // The segment goes on in the open buffer: all its chunks leave the index, that buffer is free again.
            SegmentBuffer rest = open;
            open = null;
            removeFromIndex(segment, rest.summary());
            release(rest);
        }
        dropWritten(segment, buffer, pending);
    }

    /**
     * The chunks of an abandoned segment whose write failed leave the index; its buffer and the
     * segment are reused only once the device lets go of the write.
     */
    private void dropWritten(int segment, SegmentBuffer buffer, CompletableFuture<Void> pending) {
        removeFromIndex(segment, buffer.summary());
        if (pending.isDone()) {
            release(buffer);
            draining.add(segment);
            retireDrained();
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
                draining.add(p.segment());
            }
        }
        retireDrained();
    }

    /**
     * Dooms each segment the order gave up as it took a new one, and the segments
     * found to hold only dead chunks: one at a time, chosen by the order's own eviction as it goes,
     * each serving until a checkpoint has released it and the writer needs it. (The order's room is
     * a batch short of every segment, so that the doomed have room to wait.)
     */
    private void doomEvicted() {
        while (order.hasEvicted()) {
            int victim = order.victim();
            // Only durable segments are in the order, and only the writer changes a state: always true.
            if (victim != -1 && table.state(victim) == SegmentState.DURABLE) {
                table.doom(victim);
            }
        }
        for (int dead = nextDead(); dead != -1; dead = nextDead()) {
            deadFirst.poll();
            if (order.take(dead)) {
                table.doom(dead);
            }
        }
    }

    /**
     * Dooms the policy's batch of segments when a segment is needed and none is doomed (the order
     * gave none up of its own accord): one checkpoint then releases them all, and until each is
     * reclaimed it serves on. Returns false when not even one could be.
     */
    private boolean doomBatch() {
        boolean any = false;
        for (int i = 0; i < reclaimBatch; i++) {
            int victim = nextVictim();
            if (victim == -1) {
                break;
            }
            table.doom(victim);
            any = true;
        }
        return any;
    }

    /**
     * Reclaims a released doomed segment, from the space read least since the last segment opened
     * (ties: the most released); false when no space has one.
     */
    private boolean reclaimReleased() {
        int space = leastLoaded(table::releasedSegments);
        if (space == -1) {
            return false;
        }
        reclaim(table.takeReleased(space));
        return true;
    }

    /** The first durable segment found holding only dead chunks and still in the order, left queued; or -1. */
    private int nextDead() {
        if (deadUnlooked) {
            deadUnlooked = false;
            deadFirst.clear();
            for (int segment = 0; segment < table.segments(); segment++) {
                if (table.state(segment) == SegmentState.DURABLE && samples.noneLive(segment, liveKey)) {
                    deadFirst.add(segment);
                }
            }
        }
        while (!deadFirst.isEmpty() && (table.state(deadFirst.peek()) != SegmentState.DURABLE
                || !samples.noneLive(deadFirst.peek(), liveKey))) {
            deadFirst.poll(); // reclaimed, or reused for live chunks, since it was found
        }
        return deadFirst.isEmpty() ? -1 : deadFirst.peek();
    }

    /** Takes out of the order a durable segment of dead chunks if there is one, else the one it names; -1 when none. */
    private int nextVictim() {
        int victim = -1;
        for (int dead = nextDead(); dead != -1 && victim == -1; dead = nextDead()) {
            deadFirst.poll();
            victim = order.take(dead) ? dead : -1;
        }
        return victim == -1 ? order.victim() : victim;
    }

    /**
     * Takes a durable or released doomed segment's chunks out of the index, reading back those to be
     * reinserted; it is free (or retired) once its reads have ended.
     */
    private void reclaim(int victim) {
        table.startReclaim(victim);
        // Once started, the reclaim ends whatever its summary holds: a segment left reclaiming would
        // never be free again.
        draining.add(victim);
        reclaimed++;
        SegmentSummary summary = readSummary(victim);
        if (summary != null) {
            List<Kept> readBack = reinsertBytes > 0 ? readBack(victim, summary) : List.of();
            removeFromIndex(victim, summary);
            kept.addAll(readBack);
        } else {
            int space = table.space(victim);
            SegmentLayout layout = layouts[space];
            int at = table.index(victim);
            locations.droppedWhere(address -> RecordAddress.space(address) == space && layout.contains(address)
                    && layout.index(address) == at);
        }
        retireDrained();
    }

    /**
     * The chunks of a segment being reclaimed that were read since written, the most read lately
     * first (by admission's sketch, when there is one), up to the reinsertion share, read back and
     * checked; one that cannot be read or checked is left out.
     */
    private List<Kept> readBack(int segment, SegmentSummary summary) {
        int space = table.space(segment);
        int at = table.index(segment);
        SegmentLayout layout = layouts[space];
        List<Integer> read = new ArrayList<>();
        for (int i = 0; i < summary.count(); i++) {
            if (index.wasRead(summary.keys()[i], layout.address(space, at, summary.sectors()[i]))
                    && liveKey.test(summary.keys()[i])) {
                read.add(i);
            }
        }
        if (admission != null) {
            // Frequencies change under readers: sort by a snapshot, or the sort may see an inconsistent order.
            int[] frequency = new int[summary.count()];
            for (int i : read) {
                frequency[i] = admission.frequency(summary.keys()[i]);
            }
            read.sort(Comparator.comparingInt((Integer i) -> frequency[i]).reversed());
        }
        List<Kept> back = new ArrayList<>();
        long budget = reinsertBytes;
        for (int i : read) {
            int bytes = RecordFormat.recordBytes(summary.lengths()[i]);
            if (bytes > budget) {
                continue;
            }
            long start = layout.startByte(at) + (long) summary.sectors()[i] * RecordAddress.SECTOR_BYTES;
            long firstBlock = start / BlockDevice.BLOCK_SIZE;
            long endBlock = (start + bytes + BlockDevice.BLOCK_SIZE - 1) / BlockDevice.BLOCK_SIZE;
            ByteBuffer blocks = AlignedBuffers.allocate((int) (endBlock - firstBlock) * BlockDevice.BLOCK_SIZE);
            try {
                drivers[space].await(drivers[space].read(firstBlock, blocks), "reinsertion read of segment " + segment);
                ByteBuffer chunk = RecordFormat.check(blocks, (int) (start - firstBlock * BlockDevice.BLOCK_SIZE),
                        summary.keys()[i], table.sequence(segment));
                back.add(new Kept(summary.keys()[i], ByteBuffer.allocate(chunk.remaining()).put(chunk).flip()));
                budget -= bytes;
            } catch (IOException | RecordMismatchException e) {
                // Not kept: a chunk the device cannot give back is a miss, never a wrong byte.
            }
        }
        return back;
    }

    private void removeFromIndex(int segment, SegmentSummary summary) {
        int space = table.space(segment);
        int at = table.index(segment);
        for (int i = 0; i < summary.count(); i++) {
            locations.dropped(summary.keys()[i], layouts[space].address(space, at, summary.sectors()[i]));
        }
    }

    /** Retires the segments being reclaimed whose reads have ended; the others are looked at next time. */
    private void retireDrained() {
        for (Iterator<Integer> it = draining.iterator(); it.hasNext(); ) {
            if (table.finishReclaim(it.next())) {
                it.remove();
            }
        }
    }

    /** The summary of the segment's current use, or null if it cannot be read or does not check. */
    private SegmentSummary readSummary(int segment) {
        try {
            return summaryOf(segment);
        } catch (IOException | RecordMismatchException e) {
            return null;
        }
    }

    private SegmentSummary summaryOf(int segment) throws IOException, RecordMismatchException {
        int space = table.space(segment);
        return SegmentSummaries.read(drivers[space], layouts[space], table.index(segment), table.sequence(segment));
    }

    /** Samples of a segment that has none (a recovered one), drawn from its summary's keys. */
    private void sampleFrom(int segment, SegmentSummary summary) {
        for (int i = 0; i < summary.count(); i++) {
            samples.appended(segment, summary.keys()[i]);
        }
    }
}

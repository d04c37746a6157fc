package io.flashchunk.cache.compact;

import io.flashchunk.cache.driver.StorageDriver;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The compact engine's one writer, and the place where a miss becomes a flash write
 * ({@link #append}): it appends records to the open segment and points the index at them, seals a
 * full segment and writes it with one device write while the next fills (two buffers: the write
 * queue's two stages), and when no segment is free reclaims the one the {@link ReclaimOrder} names,
 * taking its chunks out of the index by the segment's summary. Every method runs on the writer's
 * thread.
 *
 * <p>Without checkpoints ({@code retireAtOnce}), a reclaimed segment is free once its reads are done;
 * with them, it waits in the {@link SegmentTable} for a later checkpoint to be durable.
 */
public final class SegmentWriter {
    private final SegmentTable table;
    private final SegmentLayout[] layouts;
    private final StorageDriver[] drivers;
    private final CompactChunkIndex index;
    private final ReclaimOrder order;
    private final boolean retireAtOnce;
    private final SegmentBuffer[] buffers;
    private final ArrayDeque<SegmentBuffer> freeBuffers = new ArrayDeque<>();
    private SegmentBuffer open;
    private SegmentBuffer writing;
    private CompletableFuture<Void> write;
    private int nextSpace;
    private long appended;
    private long reclaimed;
    private long failedWrites;

    /**
     * @param buffers two buffers of the segment size: one fills while the other is written
     */
    public SegmentWriter(SegmentTable table, SegmentLayout[] layouts, StorageDriver[] drivers, CompactChunkIndex index,
                         ReclaimOrder order, SegmentBuffer[] buffers, boolean retireAtOnce) {
        if (layouts.length != table.spaces() || drivers.length != table.spaces() || buffers.length != 2) {
            throw new IllegalArgumentException(table.spaces() + " spaces, " + layouts.length + " layouts, "
                    + drivers.length + " drivers, " + buffers.length + " buffers (2 needed)");
        }
        this.table = table;
        this.layouts = layouts;
        this.drivers = drivers;
        this.index = index;
        this.order = order;
        this.retireAtOnce = retireAtOnce;
        this.buffers = buffers.clone();
        freeBuffers.addAll(java.util.List.of(buffers));
    }

    /**
     * Writes {@code chunk} (position to limit, left unchanged) as the chunk of {@code key}; returns
     * false when it cannot be cached (larger than a segment, or no segment could be opened).
     */
    public boolean append(long key, ByteBuffer chunk) throws IOException {
        if (open == null && !openSegment()) {
            return false;
        }
        int sector = open.append(key, chunk);
        if (sector == -1) {
            if (open.records() == 0) {
                return false; // larger than a segment
            }
            sealOpen();
            if (!openSegment()) {
                return false;
            }
            sector = open.append(key, chunk);
            if (sector == -1) {
                return false; // larger than a segment
            }
        }
        int segment = open.segment();
        int space = table.space(segment);
        index.put(key, layouts[space].address(space, table.index(segment), sector));
        appended++;
        return true;
    }

    /** Seals the open segment, if it holds anything, and waits until every sealed segment is on flash. */
    public void flush() throws IOException {
        if (open != null && open.records() > 0) {
            sealOpen();
        }
        finishWrite();
    }

    /** The buffers readers look in for chunks not yet on flash. */
    public SegmentBuffer[] buffers() {
        return buffers.clone();
    }

    public long appended() {
        return appended;
    }

    public long reclaimed() {
        return reclaimed;
    }

    public long failedWrites() {
        return failedWrites;
    }

    /**
     * Opens a segment, reclaiming one first when none is free; returns false when none can be had
     * (with checkpoints, a reclaimed segment frees only after the next one: one reclaim per call).
     */
    private boolean openSegment() throws IOException {
        int segment = openInSomeSpace();
        for (int reclaims = 0; segment == -1; reclaims++) {
            if ((reclaims > 0 && !retireAtOnce) || !reclaimOne()) {
                return false;
            }
            segment = openInSomeSpace();
        }
        if (freeBuffers.isEmpty()) {
            finishWrite();
        }
        open = freeBuffers.poll();
        open.start(segment, table.sequence(segment));
        return true;
    }

    /** Opens a free segment in the next space that has one, in turn. */
    private int openInSomeSpace() {
        for (int i = 0; i < table.spaces(); i++) {
            int space = (nextSpace + i) % table.spaces();
            int segment = table.open(space);
            if (segment != -1) {
                nextSpace = (space + 1) % table.spaces();
                return segment;
            }
        }
        return -1;
    }

    private void sealOpen() throws IOException {
        finishWrite();
        int segment = open.segment();
        ByteBuffer image = open.seal();
        table.seal(segment);
        int space = table.space(segment);
        writing = open;
        open = null;
        try {
            write = drivers[space].write(layouts[space].lba(table.index(segment)), image);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            write = CompletableFuture.failedFuture(new IOException("interrupted writing segment " + segment, e));
        }
    }

    /** Waits for the segment being written; on failure its chunks leave the index and the segment is retired. */
    private void finishWrite() throws IOException {
        if (writing == null) {
            return;
        }
        int segment = writing.segment();
        int space = table.space(segment);
        try {
            drivers[space].await(write, "write of segment " + segment);
            table.written(segment);
            order.written(segment);
        } catch (IOException e) {
            failedWrites++;
            table.abandon(segment);
            removeFromIndex(segment, writing.summary());
            awaitReclaimed(segment);
        }
        while (!writing.tryReuse()) {
            Thread.onSpinWait(); // reads of memory take microseconds
        }
        freeBuffers.add(writing);
        writing = null;
    }

    /** Reclaims the segment the order names; returns false when there is none. */
    private boolean reclaimOne() throws IOException {
        int victim = order.victim();
        if (victim == -1) {
            return false;
        }
        table.startReclaim(victim);
        SegmentSummary summary = readSummary(victim);
        if (summary != null) {
            removeFromIndex(victim, summary);
        } else {
            SegmentLayout layout = layouts[table.space(victim)];
            int at = table.index(victim);
            index.removeIf(address -> RecordAddress.space(address) == table.space(victim) && layout.contains(address)
                    && layout.index(address) == at);
        }
        awaitReclaimed(victim);
        reclaimed++;
        return true;
    }

    private void removeFromIndex(int segment, SegmentSummary summary) {
        int space = table.space(segment);
        int at = table.index(segment);
        for (int i = 0; i < summary.count(); i++) {
            index.remove(summary.keys()[i], layouts[space].address(space, at, summary.sectors()[i]));
        }
    }

    /** Waits for the reads pinned to a segment to end (bounded by the device timeout), then retires it. */
    private void awaitReclaimed(int segment) throws IOException {
        long deadline = System.nanoTime() + 2 * drivers[table.space(segment)].timeoutNanos();
        while (!table.finishReclaim(segment)) {
            if (System.nanoTime() > deadline) {
                throw new IOException("reads of segment " + segment + " did not end in "
                        + TimeUnit.NANOSECONDS.toMillis(2 * drivers[table.space(segment)].timeoutNanos()) + " ms");
            }
            LockSupport.parkNanos(10_000);
        }
        if (retireAtOnce) {
            table.checkpointDurable(table.checkpointStarted());
        }
    }

    /** The summary at the end of a durable segment, or null when it cannot be read or checked. */
    private SegmentSummary readSummary(int segment) {
        int space = table.space(segment);
        SegmentLayout layout = layouts[space];
        long end = layout.startByte(table.index(segment)) + layout.segmentBytes();
        try {
            ByteBuffer tail = readTail(space, end, 4096);
            int bytes = SegmentSummary.bytesAtEnd(tail);
            if (bytes > tail.remaining()) {
                tail = readTail(space, end, Math.min(layout.segmentBytes(), (bytes + 4095) / 4096 * 4096));
            }
            return SegmentSummary.read(tail, table.sequence(segment));
        } catch (IOException | RecordMismatchException e) {
            return null;
        }
    }

    private ByteBuffer readTail(int space, long endByte, int bytes) throws IOException {
        ByteBuffer buffer = io.flashchunk.buffer.AlignedBuffers.allocate(bytes);
        drivers[space].await(drivers[space].read((endByte - bytes) / 4096, buffer), "summary read");
        return buffer;
    }
}

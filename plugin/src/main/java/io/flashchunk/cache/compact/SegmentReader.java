package io.flashchunk.cache.compact;

import io.flashchunk.buffer.AlignedBufferPool;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * The compact engine's read path, safe from any thread: looks a chunk up in the index, pins its
 * segment, reads the record from the segment's buffer while it is in memory or else from flash, and
 * serves it only when the record is that chunk's, from that use of the segment, and whole.
 * Everything else is a miss.
 */
public final class SegmentReader {
    private final SegmentTable table;
    private final SegmentLayout[] layouts;
    private final StorageDriver[] drivers;
    private final CompactChunkIndex index;
    private final ReclaimOrder order;
    private final SegmentBuffer[] buffers;
    private final AlignedBufferPool pool;

    public SegmentReader(SegmentTable table, SegmentLayout[] layouts, StorageDriver[] drivers, CompactChunkIndex index,
                         ReclaimOrder order, SegmentBuffer[] buffers, AlignedBufferPool pool) {
        this.table = table;
        this.layouts = layouts;
        this.drivers = drivers;
        this.index = index;
        this.order = order;
        this.buffers = buffers.clone();
        this.pool = pool;
    }

    /**
     * Copies the chunk of {@code key} into {@code into} (from its position; at least
     * {@code chunkLength} bytes of room) and returns its length, or -1 on a miss.
     *
     * @param chunkLength the most bytes the chunk can have (its file's chunk length)
     * @throws IOException when the device failed or did not answer in time
     * @throws RecordMismatchException when flash held another record or damaged bytes: a miss the
     *         caller may count and log
     */
    public int read(long key, int chunkLength, ByteBuffer into) throws IOException, RecordMismatchException {
        if (chunkLength < 1 || chunkLength > into.remaining()) {
            throw new IllegalArgumentException("chunk length " + chunkLength + " with room for " + into.remaining());
        }
        long address = index.find(key);
        if (address == RecordAddress.NONE) {
            return -1;
        }
        int space = RecordAddress.space(address);
        if (space >= layouts.length || !layouts[space].contains(address)) {
            return -1;
        }
        SegmentLayout layout = layouts[space];
        if (RecordFormat.recordBytes(chunkLength) > layout.segmentBytes()) {
            throw new IllegalArgumentException("chunk length " + chunkLength + " exceeds a segment");
        }
        int segment = table.segment(space, layout.index(address));
        long sequence = table.pin(segment);
        if (sequence == -1) {
            return -1;
        }
        try {
            int sector = layout.sectorInSegment(address);
            int length;
            SegmentState state = table.state(segment);
            if (state == SegmentState.DURABLE || state == SegmentState.RECLAIMING) {
                length = readFromFlash(space, layout, address, sector, key, sequence, chunkLength, into);
            } else {
                length = readFromMemory(segment, sequence, sector, key, chunkLength, into);
                if (length == -1) {
                    // Written since the buffers were looked at, or not in a buffer (yet): flash only once durable.
                    state = table.state(segment);
                    if (state != SegmentState.DURABLE && state != SegmentState.RECLAIMING) {
                        return -1;
                    }
                    length = readFromFlash(space, layout, address, sector, key, sequence, chunkLength, into);
                }
            }
            index.markRead(key, address);
            order.read(segment);
            return length;
        } finally {
            table.unpin(segment);
        }
    }

    private int readFromMemory(int segment, long sequence, int sector, long key, int chunkLength, ByteBuffer into)
            throws RecordMismatchException {
        for (SegmentBuffer buffer : buffers) {
            int length = buffer.read(segment, sequence, sector, key, chunkLength, into);
            if (length != -1) {
                return length;
            }
        }
        return -1;
    }

    private int readFromFlash(int space, SegmentLayout layout, long address, int sector, long key, long sequence,
                              int chunkLength, ByteBuffer into) throws IOException, RecordMismatchException {
        long start = RecordAddress.byteOffset(address);
        long firstBlock = start / BlockDevice.BLOCK_SIZE;
        long segmentEnd = layout.startByte(layout.index(address)) + layout.segmentBytes();
        long end = Math.min(segmentEnd, start + RecordFormat.recordBytes(chunkLength));
        int bytes = (int) ((end + BlockDevice.BLOCK_SIZE - 1) / BlockDevice.BLOCK_SIZE - firstBlock) * BlockDevice.BLOCK_SIZE;
        ByteBuffer buffer = pool.acquire(bytes);
        CompletableFuture<Void> read;
        try {
            read = drivers[space].read(firstBlock, buffer);
        } catch (RuntimeException e) {
            pool.release(buffer);
            throw e;
        }
        try {
            drivers[space].await(read, "read of segment sector " + sector);
        } catch (IOException e) {
            if (read.isDone()) {
                pool.release(buffer);
            } // else the device still owns the buffer (timed out, or this thread interrupted): never reused
            throw e;
        }
        try {
            ByteBuffer chunk = RecordFormat.check(buffer, (int) (start - firstBlock * BlockDevice.BLOCK_SIZE), key, sequence);
            int length = chunk.remaining();
            if (length > chunkLength) {
                throw new RecordMismatchException("record at sector " + sector + " holds " + length
                        + " bytes; the chunk has at most " + chunkLength);
            }
            into.put(chunk);
            return length;
        } finally {
            pool.release(buffer);
        }
    }
}

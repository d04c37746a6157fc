package io.flashchunk.cache.compact;

import io.flashchunk.buffer.AlignedBufferPool;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

/**
 * The compact engine's read path, safe from any thread: looks a chunk up in the index, pins its
 * segment, reads the record from the segment's buffer while it is in memory or else from flash, and
 * serves it only when the record is that chunk's, from that use of the segment, and whole.
 * Everything else is a miss. Flash reads go as its {@link FlashReadPolicy} says.
 */
public final class SegmentReader {
    private final SegmentTable table;
    private final SegmentLayout[] layouts;
    private final StorageDriver[] drivers;
    private final CompactChunkIndex index;
    private final ReclaimOrder order;
    private final SegmentBuffer[] buffers;
    private final AlignedBufferPool pool;
    private final FlashReadPolicy policy;
    private final LongAdder memoryReads = new LongAdder();
    private final LongAdder flashReads = new LongAdder();
    private final LongAdder flashBytesRead = new LongAdder();
    private final LongAdder refusedByGate = new LongAdder();
    private final LongAdder timeouts = new LongAdder();

    public SegmentReader(SegmentTable table, SegmentLayout[] layouts, StorageDriver[] drivers, CompactChunkIndex index,
                         ReclaimOrder order, SegmentBuffer[] buffers, AlignedBufferPool pool) {
        this(table, layouts, drivers, index, order, buffers, pool, FlashReadPolicy.DEFAULT);
    }

    public SegmentReader(SegmentTable table, SegmentLayout[] layouts, StorageDriver[] drivers, CompactChunkIndex index,
                         ReclaimOrder order, SegmentBuffer[] buffers, AlignedBufferPool pool, FlashReadPolicy policy) {
        this.table = table;
        this.layouts = layouts;
        this.drivers = drivers;
        this.index = index;
        this.order = order;
        this.buffers = buffers.clone();
        this.pool = pool;
        this.policy = policy;
    }

    /**
     * Copies the chunk of {@code key} into {@code into} (from its position; at least
     * {@code chunkLength} bytes of room) and returns its length, or -1 on a miss.
     *
     * @param chunkLength the most bytes the chunk can have (its file's chunk length)
     * @throws IOException when the device failed or did not answer in time (the gate refusing a read is a
     *         plain miss)
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
                if (length != -1) {
                    memoryReads.increment();
                } else {
                    // Written since the buffers were looked at, or not in a buffer (yet): flash only once durable.
                    state = table.state(segment);
                    if (state != SegmentState.DURABLE && state != SegmentState.RECLAIMING) {
                        return -1;
                    }
                    length = readFromFlash(space, layout, address, sector, key, sequence, chunkLength, into);
                }
            }
            if (length == -1) {
                return -1;
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
        if (!policy.gate().begin(space)) {
            refusedByGate.increment();
            return -1;
        }
        ByteBuffer buffer = pool.acquire(bytes);
        long started = policy.clock().getAsLong();
        boolean failed = true;
        try {
            if (policy.inCallerThread()) {
                readNow(space, firstBlock, buffer);
            } else {
                readQueued(space, firstBlock, buffer, sector);
            }
            failed = false;
        } finally {
            policy.gate().end(space, policy.clock().getAsLong() - started, failed);
        }
        flashReads.increment();
        flashBytesRead.add(bytes);
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

    private void readNow(int space, long firstBlock, ByteBuffer buffer) throws IOException {
        try {
            drivers[space].readNow(firstBlock, buffer);
        } catch (IOException | RuntimeException e) {
            pool.release(buffer);
            throw e;
        }
    }

    /** A read through the device's queue, waited for at most the policy's timeout. */
    private void readQueued(int space, long firstBlock, ByteBuffer buffer, int sector) throws IOException {
        CompletableFuture<Void> read;
        try {
            read = drivers[space].read(firstBlock, buffer);
        } catch (RuntimeException e) {
            pool.release(buffer);
            throw e;
        }
        try {
            read.get(policy.timeoutNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            timeouts.increment();
            read.whenComplete((ignored, failure) -> pool.release(buffer)); // the device owns it until it answers
            throw new IOException("read of segment sector " + sector + " on " + drivers[space].path()
                    + " did not finish in " + TimeUnit.NANOSECONDS.toMillis(policy.timeoutNanos()) + " ms");
        } catch (ExecutionException e) {
            pool.release(buffer);
            throw new IOException("read of segment sector " + sector + " on " + drivers[space].path() + " failed: "
                    + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            read.whenComplete((ignored, failure) -> pool.release(buffer));
            throw new IOException("interrupted reading segment sector " + sector, e);
        }
    }

    /** Hits served from a segment buffer still in memory. */
    public long memoryReads() {
        return memoryReads.sum();
    }

    /** Records read from flash (whether or not they then passed their checks). */
    public long flashReads() {
        return flashReads.sum();
    }

    public long flashBytesRead() {
        return flashBytesRead.sum();
    }

    /** Flash reads the gate refused (the device out of use): misses. */
    public long refusedByGate() {
        return refusedByGate.sum();
    }

    /** Queued reads given up after the policy's timeout. */
    public long timeouts() {
        return timeouts.sum();
    }
}

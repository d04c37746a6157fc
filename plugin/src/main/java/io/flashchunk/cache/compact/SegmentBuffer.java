package io.flashchunk.cache.compact;

import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A segment being filled in memory: records appended one after another, served to readers from here
 * until the segment is on flash, then its summary written at the end so that the buffer is the exact
 * image of the segment to write. One buffer is reused for one segment after another. Before it is
 * full, the records so far may be written with a summary of them ({@link #unwrittenPrefix}), so that
 * a checkpoint can name them; the segment's own write then starts where that one left off.
 *
 * <p>Concurrency: one writer appends, seals and {@link #tryReuse reuses}; readers {@link #read} from
 * any thread. A record is visible to readers once the fill published after it covers it, so a reader
 * never sees a record being written. The buffer is reused only when no read of it is in flight: a
 * reader counts itself in, then checks the buffer still holds the segment's use it wants; the writer
 * closes the buffer to new readers, then waits for the count to reach zero.
 */
public final class SegmentBuffer {
    private static final int CLOSED = Integer.MIN_VALUE / 2;

    private final ByteBuffer bytes;
    /** Readers in flight, plus {@link #CLOSED} while the writer is taking the buffer back. */
    private final AtomicInteger readers = new AtomicInteger();
    private volatile int segment = -1;
    private volatile long sequence = -1;
    /** Bytes of complete records; published after each record is written. */
    private volatile int fill;
    // The writer's own state.
    private int records;
    private long[] keys = new long[64];
    private int[] sectors = new int[64];
    private int[] lengths = new int[64];
    private boolean sealed;
    /** The fill when the records were last written ahead of the seal (the block it ends in is written again). */
    private int writtenFill;

    /** A block-aligned part of the buffer, to write {@code offset} bytes from the segment's start. */
    public record Part(int offset, ByteBuffer bytes) {
    }

    /** @param bytes a buffer of the segment's size (a multiple of 4096, aligned for direct I/O) */
    public SegmentBuffer(ByteBuffer bytes) {
        if (bytes.capacity() % 4096 != 0 || bytes.capacity() < 4096) {
            throw new IllegalArgumentException("a segment of " + bytes.capacity() + " bytes is not a multiple of 4096");
        }
        this.bytes = bytes;
    }

    /** Starts filling the buffer for a new use of {@code segment}; the buffer must be free (new or {@link #tryReuse}d). */
    public void start(int segment, long sequence) {
        if (this.segment != -1) {
            throw new IllegalStateException("buffer still holds segment " + this.segment);
        }
        this.sequence = sequence;
        this.records = 0;
        this.sealed = false;
        this.fill = 0;
        this.writtenFill = 0;
        if (readers.get() < 0) {
            readers.addAndGet(-CLOSED); // reopens, keeping the count of refused readers not yet gone
        }
        this.segment = segment; // last: readers check the segment, then the sequence
    }

    public int segment() {
        return segment;
    }

    /** The segment size this buffer holds. */
    public int capacity() {
        return bytes.capacity();
    }

    public long sequence() {
        return sequence;
    }

    public int records() {
        return records;
    }

    /**
     * Appends the record of {@code chunk} (position to limit; left unchanged) and returns its offset
     * in sectors from the segment's start, or -1 when it does not fit beside the summary.
     */
    public int append(long key, ByteBuffer chunk) {
        if (sealed || segment == -1) {
            throw new IllegalStateException("segment buffer is " + (sealed ? "sealed" : "not started"));
        }
        int at = fill;
        int recordBytes = RecordFormat.recordBytes(chunk.remaining());
        if ((long) at + recordBytes + SegmentSummary.bytes(records + 1) > bytes.capacity()) {
            return -1;
        }
        RecordFormat.write(bytes, at, key, sequence, chunk);
        if (records == keys.length) {
            keys = Arrays.copyOf(keys, 2 * records);
            sectors = Arrays.copyOf(sectors, 2 * records);
            lengths = Arrays.copyOf(lengths, 2 * records);
        }
        keys[records] = key;
        sectors[records] = at / RecordAddress.SECTOR_BYTES;
        lengths[records] = chunk.remaining();
        records++;
        fill = at + recordBytes; // publishes the record
        return sectors[records - 1];
    }

    /** Bytes of complete records so far. */
    public int fill() {
        return fill;
    }

    /**
     * What to write, in order, so that the records appended so far are on flash with a summary of
     * them at the segment's end, as a sealed segment's are: the records since the last such write
     * (from the block it ended in) and the summary's blocks; empty when nothing was appended since.
     * Call {@link #prefixWritten} once every part is durable.
     */
    public List<Part> unwrittenPrefix() {
        if (sealed || segment == -1) {
            throw new IllegalStateException("segment buffer is " + (sealed ? "sealed" : "not started"));
        }
        if (records == 0 || fill == writtenFill) {
            return List.of();
        }
        // The summary goes where the final one will: records never reach it (append keeps room for a larger one).
        summary().write(bytes);
        int block = BlockDevice.BLOCK_SIZE;
        int from = writtenFrom();
        int recordsEnd = (fill + block - 1) / block * block;
        int summaryFrom = (bytes.capacity() - SegmentSummary.bytes(records)) / block * block;
        if (summaryFrom <= recordsEnd) {
            return List.of(part(from, bytes.capacity()));
        }
        return List.of(part(from, recordsEnd), part(summaryFrom, bytes.capacity()));
    }

    /** The parts {@link #unwrittenPrefix} gave are durable: the records up to {@link #fill} are on flash. */
    public void prefixWritten() {
        writtenFill = fill;
    }

    /** Where the next write of this segment starts: the block the records last written ended in. */
    private int writtenFrom() {
        return writtenFill / BlockDevice.BLOCK_SIZE * BlockDevice.BLOCK_SIZE;
    }

    /**
     * Seals the segment: zeroes the space between the last record and the summary and writes the
     * summary. Returns what is left to write: the image from the block the last
     * {@link #unwrittenPrefix} write ended in (the whole segment when there was none) to the end.
     */
    public Part seal() {
        if (sealed || segment == -1) {
            throw new IllegalStateException("segment buffer is " + (sealed ? "sealed" : "not started"));
        }
        sealed = true;
        SegmentSummary summary = summary();
        int summaryStart = bytes.capacity() - SegmentSummary.bytes(records);
        for (int i = fill; i < summaryStart; i++) {
            bytes.put(i, (byte) 0);
        }
        summary.write(bytes);
        return part(writtenFrom(), bytes.capacity());
    }

    private Part part(int from, int to) {
        return new Part(from, bytes.asReadOnlyBuffer().limit(to).position(from).slice());
    }

    /** The records appended so far, as the summary lists them. */
    public SegmentSummary summary() {
        return new SegmentSummary(sequence, Arrays.copyOf(keys, records), Arrays.copyOf(sectors, records),
                Arrays.copyOf(lengths, records));
    }

    /**
     * Copies into {@code into} (from its position) the chunk of {@code key} whose record starts at
     * {@code sector}, if this buffer holds use {@code sequence} of {@code segment} and that record is
     * complete; returns the chunk's length, or -1 when the buffer holds something else (read from
     * flash instead, or miss). Throws when the record is not that chunk's or longer than
     * {@code chunkLength}.
     */
    public int read(int segment, long sequence, int sector, long key, int chunkLength, ByteBuffer into)
            throws RecordMismatchException {
        if (this.segment != segment) {
            return -1; // the common case, without touching the shared count
        }
        if (readers.incrementAndGet() < 0) {
            readers.decrementAndGet();
            return -1;
        }
        try {
            if (this.segment != segment || this.sequence != sequence) {
                return -1;
            }
            int at = sector * RecordAddress.SECTOR_BYTES;
            ByteBuffer complete = bytes.asReadOnlyBuffer().limit(fill).position(0);
            if (at >= complete.limit()) {
                throw new RecordMismatchException("no complete record at sector " + sector + " of open segment " + segment);
            }
            ByteBuffer chunk = RecordFormat.check(complete, at, key, sequence);
            int length = chunk.remaining();
            if (length > chunkLength || length > into.remaining()) {
                throw new RecordMismatchException("record at sector " + sector + " of segment " + segment + " holds "
                        + length + " bytes; the chunk has at most " + chunkLength);
            }
            into.put(chunk);
            return length;
        } finally {
            readers.decrementAndGet();
        }
    }

    /**
     * Takes the buffer back for another segment once no read is in flight; returns whether it did
     * (if not, call again: reads of memory are short). New reads are refused from the first call.
     */
    public boolean tryReuse() {
        if (readers.get() >= 0) {
            readers.addAndGet(CLOSED);
        }
        if (readers.get() != CLOSED) {
            return false;
        }
        segment = -1;
        sequence = -1;
        return true;
    }
}

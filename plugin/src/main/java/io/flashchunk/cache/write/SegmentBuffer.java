package io.flashchunk.cache.write;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.format.ChunkCompression;
import io.flashchunk.cache.format.ChunkForm;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.format.SegmentSummary;
import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A window of a segment being filled in memory: records appended one after another, served to
 * readers from here until they are on flash. The window may be smaller than the segment (the
 * engine's are a quarter of it, {@link #windowFor}: 4 MiB of a 16 MiB segment): when a record no
 * longer fits ({@link #WINDOW_FULL}), the
 * window's records are written ({@link #windowPart}) and the other buffer {@link #continueFrom
 * continues} the segment from the block they end in. The summary of every record of the segment is
 * written last, at the segment's end, from a small buffer of its own ({@link #seal}). So the memory
 * a segment costs while it fills is the window's, whatever the segment's size: what lets a large
 * admission sketch fit the memory budget in a cache of 10 M chunks (docs/engine.md, "Windows"). Before
 * the segment is full, the records so far may be written with a summary of them
 * ({@link #unwrittenPrefix}), so that a checkpoint can name them.
 *
 * <p>Offsets ({@link #fill}, sectors) count from the segment's start, not the window's.
 *
 * <p>Concurrency: one writer appends, seals and {@link #tryReuse reuses}; readers {@link #read} from
 * any thread. A record is visible to readers once the fill published after it covers it, so a reader
 * never sees a record being written. The buffer is reused only when no read of it is in flight: a
 * reader counts itself in, then checks the buffer still holds the segment's use it wants; the writer
 * closes the buffer to new readers, then waits for the count to reach zero.
 */
public final class SegmentBuffer {
    /** {@link #append}: the record does not fit beside the summary in what is left of the segment. */
    public static final int SEGMENT_FULL = -1;
    /** {@link #append}: the record fits in the segment but not in this window. */
    public static final int WINDOW_FULL = -2;

    private static final int CLOSED = Integer.MIN_VALUE / 2;
    private static final int BLOCK = BlockDevice.BLOCK_SIZE;

    private final ByteBuffer bytes;
    private final int segmentBytes;
    /** Readers in flight, plus {@link #CLOSED} while the writer is taking the buffer back. */
    private final AtomicInteger readers = new AtomicInteger();
    private volatile int segment = -1;
    private volatile long sequence = -1;
    /** The record alignment of the segment's space; set before {@link #segment} is published. */
    private volatile int sectorBytes = RecordAddress.MIN_SECTOR_BYTES;
    /** Where the window starts in the segment: a block boundary. */
    private volatile int base;
    /** End of the complete records, from the segment's start; published after each record is written. */
    private volatile int fill;
    // The writer's own state: every record of the segment's use, whichever window it is in.
    private int records;
    private long[] keys = new long[64];
    private int[] sectors = new int[64];
    private int[] lengths = new int[64];
    /** No more appends: sealed, or its records handed to the next window. */
    private boolean closedToAppends;
    /**
     * The segment goes on in the next window ({@link #windowPart}): a record past this one's fill is
     * there, not missing. Set before the next window is published, so a reader that found such a
     * record in the index sees it.
     */
    private volatile boolean passedOn;
    /** The fill when the records were last written (the block it ends in is written again). */
    private int writtenFill;

    /** A block-aligned part of the segment, to write {@code offset} bytes from the segment's start. */
    public static final class Part {
        private final int offset;
        private final ByteBuffer bytes;

        public Part(int offset, ByteBuffer bytes) {
            this.offset = offset;
            this.bytes = bytes;
        }

        public int offset() {
            return offset;
        }

        public ByteBuffer bytes() {
            return bytes;
        }

        @Override
        public String toString() {
            return "Part[offset=" + offset + ", bytes=" + bytes + "]";
        }
    }

    /** A buffer holding a whole segment of {@code bytes.capacity()} bytes (tests, small segments). */
    public SegmentBuffer(ByteBuffer bytes) {
        this(bytes, bytes.capacity());
    }

    /**
     * @param bytes        the window: a multiple of 4096 bytes, aligned for direct I/O, room for the
     *                     largest record and the block before it
     * @param segmentBytes the segment's size, at least the window's
     */
    public SegmentBuffer(ByteBuffer bytes, int segmentBytes) {
        if (bytes.capacity() % BLOCK != 0 || bytes.capacity() < BLOCK) {
            throw new IllegalArgumentException("a window of " + bytes.capacity() + " bytes is not a multiple of 4096");
        }
        if (segmentBytes % BLOCK != 0 || segmentBytes < bytes.capacity()) {
            throw new IllegalArgumentException("a " + bytes.capacity() + "-byte window for " + segmentBytes
                    + "-byte segments");
        }
        if (bytes.capacity() < segmentBytes && bytes.capacity() < minimumWindow()) {
            throw new IllegalArgumentException("a " + bytes.capacity() + "-byte window is smaller than the largest "
                    + "record and the block before it (" + minimumWindow() + " bytes)");
        }
        this.bytes = bytes;
        this.segmentBytes = segmentBytes;
    }

    /**
     * The window the engine gives segments of {@code segmentBytes}: a quarter of the segment (4 MiB of
     * the default 16: writes still large and sequential, 8 MiB of memory for both buffers), at least
     * the largest record and a block, at most the segment.
     */
    public static int windowFor(int segmentBytes) {
        int quarter = segmentBytes / 4 / BLOCK * BLOCK;
        return Math.min(segmentBytes, Math.max(quarter, minimumWindow()));
    }

    private static int minimumWindow() {
        int largest = RecordFormat.recordBytes(RecordFormat.MAX_CHUNK_BYTES, RecordAddress.MAX_SECTOR_BYTES);
        return BLOCK + (largest + BLOCK - 1) / BLOCK * BLOCK;
    }

    /**
     * Starts filling the buffer for a new use of {@code segment}, in a space of {@code sectorBytes}-byte
     * sectors; the buffer must be free (new or {@link #tryReuse}d).
     */
    public void start(int segment, long sequence, int sectorBytes) {
        if (this.segment != -1) {
            throw new IllegalStateException("buffer still holds segment " + this.segment);
        }
        if (!RecordAddress.isSectorSize(sectorBytes)) {
            throw new IllegalArgumentException("a sector of " + sectorBytes + " bytes");
        }
        this.sectorBytes = sectorBytes;
        this.sequence = sequence;
        this.records = 0;
        this.closedToAppends = false;
        this.passedOn = false;
        this.base = 0;
        this.fill = 0;
        this.writtenFill = 0;
        open(segment);
    }

    /**
     * Takes over the segment {@code previous} fills, from the block its records end in (copied here),
     * once {@code previous} is full ({@link #WINDOW_FULL}) and its {@link #windowPart} taken: this
     * buffer must be free. {@code previous} takes no more records and serves its own to readers until
     * it is reused.
     */
    void continueFrom(SegmentBuffer previous) {
        if (this.segment != -1) {
            throw new IllegalStateException("buffer still holds segment " + this.segment);
        }
        if (previous.segment == -1 || !previous.passedOn || previous.segmentBytes != segmentBytes) {
            throw new IllegalStateException("segment buffer to continue is not a full window of a like segment");
        }
        int from = previous.fill / BLOCK * BLOCK;
        ByteBuffer carried = previous.bytes.duplicate().limit(previous.fill - previous.base)
                .position(from - previous.base);
        bytes.duplicate().clear().put(carried);
        this.sectorBytes = previous.sectorBytes;
        this.sequence = previous.sequence;
        this.records = previous.records;
        this.keys = Arrays.copyOf(previous.keys, previous.keys.length);
        this.sectors = Arrays.copyOf(previous.sectors, previous.sectors.length);
        this.lengths = Arrays.copyOf(previous.lengths, previous.lengths.length);
        this.closedToAppends = false;
        this.passedOn = false;
        this.base = from;
        this.fill = previous.fill;
        this.writtenFill = previous.fill; // the previous window's part writes everything before it
        open(previous.segment);
    }

    private void open(int segment) {
        if (readers.get() < 0) {
            readers.addAndGet(-CLOSED); // reopens, keeping the count of refused readers not yet gone
        }
        this.segment = segment; // last: readers check the segment, then the sequence and the window
    }

    public int segment() {
        return segment;
    }

    /** The size of the segments this buffer fills. */
    public int segmentBytes() {
        return segmentBytes;
    }

    public long sequence() {
        return sequence;
    }

    /** Records of the segment's use so far, in every window. */
    public int records() {
        return records;
    }

    /** Whether a record of a {@code chunkBytes}-byte payload fits beside the summary in what is left of the segment. */
    public boolean fits(int chunkBytes) {
        return (long) fill + RecordFormat.recordBytes(chunkBytes, sectorBytes) + SegmentSummary.bytes(records + 1)
                <= segmentBytes;
    }

    /** As {@link #append(long, ByteBuffer, ChunkForm)} for a chunk's bytes as they are. */
    public int append(long key, ByteBuffer chunk) {
        return append(key, chunk, ChunkForm.RAW);
    }

    /**
     * Appends the record of a chunk whose payload in {@code form} is {@code chunk} (position to limit;
     * left unchanged) and returns its offset in sectors from the segment's start, {@link #SEGMENT_FULL}
     * when it does not fit beside the summary, or {@link #WINDOW_FULL} when the segment has room but
     * this window has not.
     */
    public int append(long key, ByteBuffer chunk, ChunkForm form) {
        if (closedToAppends || segment == -1) {
            throw new IllegalStateException("segment buffer is " + (closedToAppends ? "closed to appends" : "not started"));
        }
        int at = fill;
        int recordBytes = RecordFormat.recordBytes(chunk.remaining(), sectorBytes);
        if ((long) at + recordBytes + SegmentSummary.bytes(records + 1) > segmentBytes) {
            return SEGMENT_FULL;
        }
        if ((long) at + recordBytes > (long) base + bytes.capacity()) {
            return WINDOW_FULL;
        }
        RecordFormat.write(bytes, at - base, key, sequence, chunk, form, sectorBytes);
        if (records == keys.length) {
            keys = Arrays.copyOf(keys, 2 * records);
            sectors = Arrays.copyOf(sectors, 2 * records);
            lengths = Arrays.copyOf(lengths, 2 * records);
        }
        keys[records] = key;
        sectors[records] = at / sectorBytes;
        lengths[records] = chunk.remaining();
        records++;
        fill = at + recordBytes; // publishes the record
        return sectors[records - 1];
    }

    /** The sector the next record appended goes at. */
    public int nextSector() {
        return fill / sectorBytes;
    }

    /** End of the complete records, in bytes from the segment's start. */
    public int fill() {
        return fill;
    }

    /**
     * Closes this full window to appends and returns its records not yet written, from the block the
     * last write ended in, for the next window to {@link #continueFrom} once it is taken; null when
     * they are all written (a checkpoint's write ended exactly on a block).
     */
    Part windowPart() {
        requireOpen();
        closedToAppends = true;
        passedOn = true;
        return recordsPart(segmentBytes);
    }

    /**
     * What to write, in order, so that the records appended so far are on flash with a summary of
     * them at the segment's end, as a sealed segment's are: the records since the last such write
     * (from the block it ended in) and the summary's blocks; empty when nothing was appended since.
     * Call {@link #prefixWritten} once every part is durable.
     */
    List<Part> unwrittenPrefix() {
        requireOpen();
        if (records == 0 || fill == writtenFill) {
            return List.of();
        }
        return recordsAndSummary();
    }

    /** The parts {@link #unwrittenPrefix} gave are durable: the records up to {@link #fill} are on flash. */
    public void prefixWritten() {
        writtenFill = fill;
    }

    /**
     * Seals the segment: returns what is left to write, in order: the records since the last write
     * (from the block it ended in), then the summary at the segment's end. The space between holds
     * what it held; nothing reads it.
     */
    public List<Part> seal() {
        requireOpen();
        closedToAppends = true;
        return recordsAndSummary();
    }

    private List<Part> recordsAndSummary() {
        int summaryFrom = (segmentBytes - SegmentSummary.bytes(records)) / BLOCK * BLOCK;
        List<Part> parts = new ArrayList<>(2);
        Part records = recordsPart(summaryFrom);
        if (records != null) {
            parts.add(records);
        }
        parts.add(tail(summaryFrom));
        return parts;
    }

    /** The records from the block the last write ended in, up to {@code limit} (a block boundary); null when none. */
    private Part recordsPart(int limit) {
        int from = writtenFill / BLOCK * BLOCK;
        int to = Math.min(limit, (fill + BLOCK - 1) / BLOCK * BLOCK);
        if (to <= from) {
            return null;
        }
        for (int i = fill - base; i < to - base; i++) {
            bytes.put(i, (byte) 0); // an earlier window's bytes otherwise: what is past the records is zero
        }
        return new Part(from, bytes.asReadOnlyBuffer().limit(to - base).position(from - base).slice());
    }

    /**
     * The segment from {@code summaryFrom} to its end, in a buffer of its own: the records' bytes in
     * its first block, if they reach into it, then zeros, then the summary of every record so far.
     */
    private Part tail(int summaryFrom) {
        ByteBuffer tail = AlignedBuffers.allocate(segmentBytes - summaryFrom);
        if (fill > summaryFrom) {
            tail.put(bytes.duplicate().limit(fill - base).position(summaryFrom - base));
        }
        summary().write(tail);
        return new Part(summaryFrom, tail.clear().asReadOnlyBuffer());
    }

    private void requireOpen() {
        if (closedToAppends || segment == -1) {
            throw new IllegalStateException("segment buffer is " + (closedToAppends ? "closed to appends" : "not started"));
        }
    }

    /** The records appended so far, as the summary lists them. */
    SegmentSummary summary() {
        return new SegmentSummary(sequence, Arrays.copyOf(keys, records), Arrays.copyOf(sectors, records),
                Arrays.copyOf(lengths, records));
    }

    /**
     * Copies into {@code into} (from its position) the chunk of {@code key} whose record starts at
     * {@code sector}, if this buffer holds use {@code sequence} of {@code segment} and that record is
     * complete and in this window (decompressed, when the record holds it compressed); returns the
     * chunk's length, or -1 when the buffer holds something else (read from flash instead, or miss).
     * Throws when the record is not that chunk's or longer than {@code chunkLength}.
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
            int at = sector * sectorBytes;
            int from = base;
            if (at < from) {
                return -1; // in an earlier window: on flash by now, or in the other buffer
            }
            int to = fill;
            if (at >= to && passedOn) {
                return -1; // appended to a later window
            }
            if (at >= to) {
                throw new RecordMismatchException("no complete record at sector " + sector + " of open segment " + segment);
            }
            ByteBuffer complete = bytes.asReadOnlyBuffer().limit(to - from).position(0);
            ByteBuffer chunk = RecordFormat.check(complete, at - from, key, sequence);
            if (RecordFormat.form(complete, at - from) == ChunkForm.LZ4) {
                return ChunkCompression.decompress(chunk, into, chunkLength);
            }
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
    boolean tryReuse() {
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

package io.flashchunk.cache.read;

import io.flashchunk.buffer.AlignedBufferPool;
import io.flashchunk.cache.format.ChunkCompression;
import io.flashchunk.cache.format.ChunkForm;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.reclaim.ReclaimOrder;
import io.flashchunk.cache.space.AddressSpaces;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.cache.space.SpaceReads;
import io.flashchunk.cache.write.SegmentBuffer;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The engine's read path, safe from any thread: looks a chunk up in the index, pins its
 * segment, reads the record from the segment's buffer while it is in memory or else from flash, and
 * serves it only when the record is that chunk's, from that use of the segment, and whole.
 * Everything else is a miss. Flash reads go as its {@link FlashReadPolicy} says. A record that holds
 * its chunk compressed is decompressed here: every hit is the chunk's bytes.
 */
public final class SegmentReader {
    private final SegmentTable table;
    private final AddressSpaces spaces;
    private final ChunkIndex index;
    private final ReclaimOrder order;
    private final SegmentBuffer[] buffers;
    private final AlignedBufferPool pool;
    private final FlashReadPolicy policy;
    private final SpaceReads spaceReads;
    private final LongAdder memoryReads = new LongAdder();
    private final LongAdder flashReads = new LongAdder();
    private final LongAdder flashBytesRead = new LongAdder();
    private final LongAdder refusedByGate = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder pairedReads = new LongAdder();
    private final LongAdder busyMisses = new LongAdder();
    private final LongAdder secondReads = new LongAdder();
    private final LongAdder decompressed = new LongAdder();
    /**
     * Per space, hits' flash reads started and not yet answered by the device, those given up after
     * the timeout included (the device still holds their buffers); past {@link #maxInFlight} a hit is
     * a miss, so a device that stops answering holds a bounded amount of direct memory.
     */
    private final AtomicIntegerArray inFlight;
    private final int[] maxInFlight;
    /** Per space, reads given up after the timeout that the device has not answered yet. */
    private final AtomicIntegerArray givenUp;

    public SegmentReader(SegmentTable table, AddressSpaces spaces, ChunkIndex index,
                         ReclaimOrder order, SegmentBuffer[] buffers, AlignedBufferPool pool) {
        this(table, spaces, index, order, buffers, pool, FlashReadPolicy.DEFAULT);
    }

    public SegmentReader(SegmentTable table, AddressSpaces spaces, ChunkIndex index,
                         ReclaimOrder order, SegmentBuffer[] buffers, AlignedBufferPool pool, FlashReadPolicy policy) {
        this(table, spaces, index, order, buffers, pool, policy, new SpaceReads(spaces.count()));
    }

    /** @param spaceReads where each flash read of a hit is counted, per space (the writer's load) */
    public SegmentReader(SegmentTable table, AddressSpaces spaces, ChunkIndex index,
                         ReclaimOrder order, SegmentBuffer[] buffers, AlignedBufferPool pool, FlashReadPolicy policy,
                         SpaceReads spaceReads) {
        if (spaceReads.spaces() != spaces.count()) {
            throw new IllegalArgumentException(spaceReads.spaces() + " spaces' reads for " + spaces.count() + " spaces");
        }
        this.spaceReads = spaceReads;
        this.table = table;
        this.spaces = spaces;
        this.index = index;
        this.order = order;
        this.buffers = buffers.clone();
        this.pool = pool;
        this.policy = policy;
        this.inFlight = new AtomicIntegerArray(spaces.count());
        this.givenUp = new AtomicIntegerArray(spaces.count());
        this.maxInFlight = new int[spaces.count()];
        for (int space = 0; space < spaces.count(); space++) {
            maxInFlight[space] = MAX_IN_FLIGHT_PER_QUEUE_SLOT * spaces.driver(space).device().queueDepth();
        }
    }

    /** Hits' reads in flight a device may have, per slot of its queue: as many again wait behind those it serves. */
    static final int MAX_IN_FLIGHT_PER_QUEUE_SLOT = 2;

    /** {@link #read(long, int, long)}'s {@code nextKey} when no follower is wanted. */
    public static final long NO_NEXT = -1;

    /**
     * A hit: the chunk as a view of {@code buffer}, a buffer of {@code pool} that whoever holds the hit
     * releases once ({@link #release}); with {@code next}, the file's next chunk read by the same I/O.
     */
    public static final class Hit {
        private final ByteBuffer chunk;
        private final ByteBuffer buffer;
        private final AlignedBufferPool pool;
        private final Follower next;
        private final long flashAddress;
        private final long sequence;
        private final ChunkForm form;
        private final int recordBytes;

        /**
         * @param flashAddress the record's address, read from flash; {@link RecordAddress#NONE}: read from
         *                     a segment still in memory
         * @param sequence     the use of the record's segment the hit read
         */
        public Hit(ByteBuffer chunk, ByteBuffer buffer, AlignedBufferPool pool, Follower next, long flashAddress,
                   long sequence) {
            this(chunk, buffer, pool, next, flashAddress, sequence, ChunkForm.RAW,
                    RecordFormat.HEADER_BYTES + chunk.remaining());
        }

        /**
         * @param form        the form the record holds the chunk in ({@code chunk} is its bytes whatever it is)
         * @param recordBytes the record's header and payload, as on flash (no padding)
         */
        Hit(ByteBuffer chunk, ByteBuffer buffer, AlignedBufferPool pool, Follower next, long flashAddress,
            long sequence, ChunkForm form, int recordBytes) {
            this.flashAddress = flashAddress;
            this.sequence = sequence;
            this.chunk = chunk;
            this.buffer = buffer;
            this.pool = pool;
            this.next = next;
            this.form = form;
            this.recordBytes = recordBytes;
        }

        /**
         * The form the record holds the chunk in: a chunk moved elsewhere is written in it again. A hit
         * from a segment still in memory says {@link ChunkForm#RAW} whatever its record's form.
         */
        public ChunkForm form() {
            return form;
        }

        /**
         * The record's header and payload as on flash (its padding not counted), for a hit read from
         * flash; a hit from a segment still in memory gives the header and the chunk's length.
         */
        public int recordBytes() {
            return recordBytes;
        }

        public ByteBuffer chunk() {
            return chunk;
        }

        public ByteBuffer buffer() {
            return buffer;
        }

        public AlignedBufferPool pool() {
            return pool;
        }

        public Follower next() {
            return next;
        }

        public boolean fromFlash() {
            return flashAddress != RecordAddress.NONE;
        }

        /** The record's address when read from flash, else {@link RecordAddress#NONE}. */
        public long flashAddress() {
            return flashAddress;
        }

        /** The use of the record's segment the hit read (a segment reused since holds other records). */
        public long sequence() {
            return sequence;
        }

        public void release() {
            pool.release(buffer);
        }

        /** Copies the chunk into {@code into} (from its position), releases the hit, and returns the chunk's length. */
        public int copyAndRelease(ByteBuffer into) {
            try {
                int length = chunk.remaining();
                into.put(chunk.duplicate());
                return length;
            } finally {
                release();
            }
        }

        @Override
        public String toString() {
            return "Hit[chunk=" + chunk + ", buffer=" + buffer + ", pool=" + pool + ", next=" + next + "]";
        }
    }

    /**
     * The record of {@code key} that lay right after a hit's on flash, read with it and checked (its
     * key, segment use and CRC32C) then: {@code chunk} is a view of the hit's buffer. It may be served
     * later only if {@link #stillCurrent} says the index still points at that use of {@code address}.
     */
    public static final class Follower {
        private final long key;
        private final long address;
        private final long sequence;
        private final ByteBuffer chunk;
        /** The form its record holds: its {@link #chunk} is a payload in it until the hit decompresses it. */
        private final ChunkForm form;

        public Follower(long key, long address, long sequence, ByteBuffer chunk) {
            this(key, address, sequence, chunk, ChunkForm.RAW);
        }

        Follower(long key, long address, long sequence, ByteBuffer chunk, ChunkForm form) {
            this.key = key;
            this.address = address;
            this.sequence = sequence;
            this.chunk = chunk;
            this.form = form;
        }

        public long key() {
            return key;
        }

        public long address() {
            return address;
        }

        public long sequence() {
            return sequence;
        }

        public ByteBuffer chunk() {
            return chunk;
        }

        @Override
        public String toString() {
            return "Follower[key=" + key + ", address=" + address + ", sequence=" + sequence + ", chunk=" + chunk + "]";
        }
    }

    /**
     * Copies the chunk of {@code key} into {@code into} (from its position; at least
     * {@code chunkLength} bytes of room) and returns its length, or -1 on a miss.
     *
     * @see #read(long, int, long)
     */
    public int read(long key, int chunkLength, ByteBuffer into) throws IOException, RecordMismatchException {
        if (chunkLength > into.remaining()) {
            throw new IllegalArgumentException("chunk length " + chunkLength + " with room for " + into.remaining());
        }
        Hit hit = read(key, chunkLength, NO_NEXT, 0);
        return hit == null ? -1 : hit.copyAndRelease(into);
    }

    /**
     * The chunk of {@code key}, or null on a miss. A flash hit is served from the buffer it was read
     * into, with no copy. With {@code nextKey} (not {@link #NO_NEXT}) and that chunk's record right
     * after this one on flash (as a file's chunks written in order are), both are read with one I/O
     * (the paper's overflow read) and the hit carries the next one as a {@link Follower}; a follower
     * that fails its checks is simply left out.
     *
     * @param chunkLength the most bytes the chunk can have (its file's chunk length)
     * @throws IOException when the device failed or did not answer in time (the gate refusing a read is a
     *         plain miss)
     * @throws RecordMismatchException when flash held another record or damaged bytes: a miss the
     *         caller may count and log
     */
    public Hit read(long key, int chunkLength, long nextKey) throws IOException, RecordMismatchException {
        return read(key, chunkLength, nextKey, 0);
    }

    /**
     * As {@link #read(long, int, long)}, reading first {@code expectedRecordBytes} of the record.
     *
     * @param expectedRecordBytes how much of the record to read from flash (header and payload: records
     *        of compressed chunks are shorter than the longest a chunk can take); 0 for the longest. A
     *        record found to go on past it is read again whole (a second read, counted)
     */
    public Hit read(long key, int chunkLength, long nextKey, int expectedRecordBytes)
            throws IOException, RecordMismatchException {
        if (chunkLength < 1) {
            throw new IllegalArgumentException("chunk length " + chunkLength + " is not positive");
        }
        long address = index.find(key);
        if (address == RecordAddress.NONE) {
            return null;
        }
        int space = RecordAddress.space(address);
        if (space >= spaces.count() || !spaces.layout(space).contains(address)) {
            return null;
        }
        SegmentLayout layout = spaces.layout(space);
        if (RecordFormat.recordBytes(chunkLength, layout.sectorBytes()) > layout.segmentBytes()) {
            throw new IllegalArgumentException("chunk length " + chunkLength + " exceeds a segment");
        }
        int segment = table.segment(space, layout.index(address));
        long sequence = table.pin(segment);
        if (sequence == -1) {
            return null;
        }
        try {
            int sector = layout.sectorInSegment(address);
            Hit hit;
            SegmentState state = table.state(segment);
            if (state == SegmentState.DURABLE || state == SegmentState.DOOMED || state == SegmentState.RECLAIMING) {
                hit = readFromFlash(space, layout, segment, address, sector, key, sequence, chunkLength, nextKey,
                        expectedRecordBytes);
            } else {
                hit = readFromMemory(segment, sequence, sector, key, chunkLength);
                if (hit != null) {
                    memoryReads.increment();
                } else {
                    // Written since the buffers were looked at: flash once durable, or once the record's
                    // window is written (read after the buffers, so a buffer reused since is seen so).
                    state = table.state(segment);
                    if (state != SegmentState.DURABLE && state != SegmentState.DOOMED && state != SegmentState.RECLAIMING
                            && sector >= table.readableSectors(segment)) {
                        return null;
                    }
                    hit = readFromFlash(space, layout, segment, address, sector, key, sequence, chunkLength, nextKey,
                        expectedRecordBytes);
                }
            }
            if (hit == null) {
                return null;
            }
            index.markRead(key, address);
            if (inOrder(state)) {
                order.read(segment);
            }
            return hit;
        } finally {
            table.unpin(segment);
        }
    }

    /**
     * Whether a follower read earlier may be served now: the index still points {@code key} at
     * {@code address}, in the use of its segment the follower was read from (a segment reused since
     * may hold another record there). Counts as a read of it when so.
     */
    public boolean stillCurrent(Follower follower) {
        long address = follower.address();
        if (index.find(follower.key()) != address) {
            return false;
        }
        // After the index: a reuse that put the key back at this address has a later sequence by now.
        int space = RecordAddress.space(address);
        int segment = table.segment(space, spaces.layout(space).index(address));
        if (table.sequence(segment) != follower.sequence()) {
            return false;
        }
        index.markRead(follower.key(), address);
        if (inOrder(table.state(segment))) {
            order.read(segment);
        }
        return true;
    }

    /**
     * Whether a read of a segment in {@code state} counts in the reclaim order: not once it was
     * chosen to go (its reads count for reinsertion only, and must not pass to its next use).
     */
    private static boolean inOrder(SegmentState state) {
        return state != SegmentState.DOOMED && state != SegmentState.RECLAIMING;
    }

    private Hit readFromMemory(int segment, long sequence, int sector, long key, int chunkLength)
            throws RecordMismatchException {
        ByteBuffer into = pool.acquire(chunkLength);
        try {
            for (SegmentBuffer buffer : buffers) {
                int length = buffer.read(segment, sequence, sector, key, chunkLength, into);
                if (length != -1) {
                    Hit hit = new Hit(into.flip(), into, pool, null, RecordAddress.NONE, sequence);
                    into = null;
                    return hit;
                }
            }
            return null;
        } finally {
            if (into != null) {
                pool.release(into);
            }
        }
    }

    /**
     * Reads the record at {@code address} (and the next chunk's along, when it lies right after) from
     * flash, never past the part of the segment its current use has written: past it lie an earlier
     * use's records, or an earlier cache's, which may carry the same key and sequence.
     */
    private Hit readFromFlash(int space, SegmentLayout layout, int segment, long address, int sector, long key,
                              long sequence, int chunkLength, long nextKey, int expectedRecordBytes)
            throws IOException, RecordMismatchException {
        long start = layout.byteOffset(address);
        long firstBlock = start / BlockDevice.BLOCK_SIZE;
        // Read after every look at the state: it only grows while the segment is pinned.
        long readableEnd = layout.startByte(layout.index(address))
                + Math.min(layout.segmentBytes(), (long) table.readableSectors(segment) * layout.sectorBytes());
        if (start >= readableEnd) {
            return null; // not written in this use (an abandoned segment's unwritten windows): a miss
        }
        int longest = RecordFormat.recordBytes(chunkLength, layout.sectorBytes());
        int recordBytes = expectedRecordBytes > 0 ? Math.min(longest, expectedRecordBytes) : longest;
        long end = Math.min(readableEnd, start + recordBytes);
        // The next chunk's record, within the longest record's reach after this one's start in the written
        // part of the same segment (right after it, as a file's chunks written in order are): read it along
        // (a record that starts below the written end lies whole below it).
        long nextAddress = nextKey == NO_NEXT ? RecordAddress.NONE : index.find(nextKey);
        boolean withNext = nextAddress != RecordAddress.NONE
                && RecordAddress.space(nextAddress) == space
                && layout.byteOffset(nextAddress) > start
                && layout.byteOffset(nextAddress) <= start + longest
                && layout.byteOffset(nextAddress) < readableEnd
                && layout.contains(nextAddress)
                && layout.index(nextAddress) == layout.index(address);
        if (withNext) {
            end = Math.min(readableEnd, layout.byteOffset(nextAddress) + recordBytes);
        }
        int bytes = (int) ((end + BlockDevice.BLOCK_SIZE - 1) / BlockDevice.BLOCK_SIZE - firstBlock) * BlockDevice.BLOCK_SIZE;
        if (!startRead(space)) {
            busyMisses.increment();
            spaceReads.busy(space, policy.timeoutNanos()); // loaded: a device whose reads do not start
            if (givenUp.get(space) > 0 && policy.gate().begin(space)) {
                // Full of reads it does not answer: told to the breaker as a failed read, so that a hung
                // device is still taken out of use once no read of it can start.
                policy.gate().gaveUp(space, policy.timeoutNanos());
            }
            return null;
        }
        ByteBuffer buffer;
        try {
            buffer = pool.acquire(bytes);
        } catch (RuntimeException | Error e) {
            inFlight.decrementAndGet(space);
            throw e;
        }
        boolean admitted = false;
        try {
            admitted = policy.gate().begin(space);
        } finally {
            if (!admitted) {
                pool.release(buffer);
                inFlight.decrementAndGet(space);
            }
        }
        if (!admitted) {
            refusedByGate.increment();
            return null;
        }
        long started = policy.clock().getAsLong();
        long took = 0;
        boolean failed = true;
        try {
            if (policy.inCallerThread()) {
                readNow(space, firstBlock, buffer);
            } else {
                readQueued(space, firstBlock, buffer, sector);
            }
            failed = false;
        } finally {
            took = policy.clock().getAsLong() - started;
            policy.gate().end(space, took, failed);
            spaceReads.read(space, took); // a failed or timed-out read loads its device too
        }
        flashReads.increment();
        flashBytesRead.add(bytes);
        boolean served = false;
        try {
            long base = firstBlock * BlockDevice.BLOCK_SIZE;
            int at = (int) (start - base);
            // Every block read, but not past the written end: what lies beyond is looked at by no check.
            buffer.limit((int) (Math.min(readableEnd, base + bytes) - base));
            if (recordBytes < longest && RecordFormat.end(buffer, at) > buffer.limit()
                    && RecordFormat.end(buffer, at) - at <= longest) {
                // Longer than expected (a record of a chunk that compressed less, or not at all): read whole.
                pool.release(buffer);
                served = true; // released
                Hit whole = readFromFlash(space, layout, segment, address, sector, key, sequence, chunkLength, NO_NEXT, 0);
                if (whole != null) {
                    secondReads.increment();
                }
                return whole;
            }
            ByteBuffer payload = RecordFormat.check(buffer, at, key, sequence);
            ChunkForm form = RecordFormat.form(buffer, at);
            if (form == ChunkForm.RAW && payload.remaining() > chunkLength) {
                throw new RecordMismatchException("record at sector " + sector + " holds " + payload.remaining()
                        + " bytes; the chunk has at most " + chunkLength);
            }
            Follower next = withNext && (form != ChunkForm.RAW || payload.remaining() == chunkLength)
                    ? follower(buffer, (int) (layout.byteOffset(nextAddress) - base), nextKey, nextAddress,
                            sequence, chunkLength)
                    : null;
            int record = RecordFormat.HEADER_BYTES + payload.remaining();
            Hit hit = form == ChunkForm.RAW && (next == null || next.form == ChunkForm.RAW)
                    ? new Hit(payload, buffer, pool, next, address, sequence, form, record)
                    : decompressed(payload, form, next, buffer, chunkLength, address, sequence, record);
            served = true;
            if (hit.next() != null) {
                pairedReads.increment(); // a follower that failed its decompression is not one
            }
            return hit;
        } finally {
            if (!served) {
                pool.release(buffer);
            }
        }
    }

    /**
     * A hit whose chunk, or follower, the record holds compressed: both as chunks in a buffer of their own
     * (the hit's, then the follower's), the read's buffer released, so that a hit and its follower share
     * one buffer as raw ones do.
     */
    private Hit decompressed(ByteBuffer payload, ChunkForm form, Follower next, ByteBuffer read, int chunkLength,
                             long address, long sequence, int recordBytes) throws RecordMismatchException {
        ByteBuffer out = pool.acquire(next == null ? chunkLength : 2 * chunkLength);
        boolean done = false;
        try {
            ByteBuffer chunk = chunkFrom(payload, form, out, chunkLength);
            Follower follower = null;
            if (next != null) {
                try {
                    ByteBuffer nextChunk = chunkFrom(next.chunk, next.form, out, chunkLength);
                    follower = new Follower(next.key, next.address, next.sequence, nextChunk, next.form);
                } catch (RecordMismatchException e) {
                    follower = null; // left out; the hit stands
                }
            }
            pool.release(read);
            done = true;
            return new Hit(chunk, out, pool, follower, address, sequence, form, recordBytes);
        } finally {
            if (!done) {
                pool.release(out);
            }
        }
    }

    /** The chunk of a payload in {@code form}, written into {@code out} from its position, as a view of it. */
    private ByteBuffer chunkFrom(ByteBuffer payload, ChunkForm form, ByteBuffer out, int chunkLength)
            throws RecordMismatchException {
        int from = out.position();
        if (form == ChunkForm.LZ4) {
            ChunkCompression.decompress(payload, out, chunkLength);
            decompressed.increment();
        } else {
            out.put(payload.duplicate());
        }
        return out.duplicate().limit(out.position()).position(from).slice();
    }

    /** The next record as read along, if it is that chunk's, from this use, whole and no longer than a chunk. */
    private static Follower follower(ByteBuffer buffer, int at, long nextKey, long nextAddress, long sequence,
                                     int chunkLength) {
        try {
            ByteBuffer chunk = RecordFormat.check(buffer, at, nextKey, sequence);
            ChunkForm form = RecordFormat.form(buffer, at);
            return form != ChunkForm.RAW || chunk.remaining() <= chunkLength
                    ? new Follower(nextKey, nextAddress, sequence, chunk, form) : null;
        } catch (RecordMismatchException e) {
            return null; // not the record the index named when the read began: no follower, the hit stands
        }
    }

    /** Counts a hit's read of {@code space} in, unless the device has as many in flight as it may. */
    private boolean startRead(int space) {
        while (true) {
            int now = inFlight.get(space);
            if (now >= maxInFlight[space]) {
                return false;
            }
            if (inFlight.compareAndSet(space, now, now + 1)) {
                return true;
            }
        }
    }

    private void readNow(int space, long firstBlock, ByteBuffer buffer) throws IOException {
        try {
            spaces.driver(space).readNow(firstBlock, buffer);
        } catch (IOException | RuntimeException | Error e) {
            pool.release(buffer);
            throw e;
        } finally {
            inFlight.decrementAndGet(space);
        }
    }

    /**
     * A read waited for at most the policy's timeout: in this thread where the device can (io_uring),
     * else through the device's queue. A read still in flight at the deadline keeps its buffer.
     */
    private void readQueued(int space, long firstBlock, ByteBuffer buffer, int sector) throws IOException {
        CompletableFuture<Void> read;
        try {
            read = spaces.driver(space).readWithin(firstBlock, buffer, policy.timeoutNanos());
        } catch (RuntimeException | Error e) {
            pool.release(buffer);
            inFlight.decrementAndGet(space);
            throw e;
        }
        // Counted out when the device answers, not when the hit stops waiting: until then it holds the buffer.
        read.whenComplete((ignored, failure) -> inFlight.decrementAndGet(space));
        if (!read.isDone()) {
            read.whenComplete((ignored, failure) -> pool.release(buffer)); // the device owns it until it answers
            if (Thread.currentThread().isInterrupted()) {
                throw new IOException("interrupted reading segment sector " + sector);
            }
            timeouts.increment();
            givenUp.incrementAndGet(space);
            read.whenComplete((ignored, failure) -> givenUp.decrementAndGet(space));
            throw new IOException("read of segment sector " + sector + " on " + spaces.driver(space).path()
                    + " did not finish in " + TimeUnit.NANOSECONDS.toMillis(policy.timeoutNanos()) + " ms");
        }
        try {
            read.get();
        } catch (ExecutionException e) {
            pool.release(buffer);
            throw new IOException("read of segment sector " + sector + " on " + spaces.driver(space).path() + " failed: "
                    + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            throw new AssertionError("a done future does not wait", e);
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
    long refusedByGate() {
        return refusedByGate.sum();
    }

    /** Read buffers hits and followers still hold (0 when every one was released: a leak shows here). */
    public long outstandingBuffers() {
        return pool.outstanding();
    }

    /** Flash hits read twice: the record went on past the bytes expected of it. */
    public long secondReads() {
        return secondReads.sum();
    }

    /** Chunks decompressed from records that hold them compressed, followers included, from flash. */
    public long decompressed() {
        return decompressed.sum();
    }

    /** Flash hits whose read brought the file's next chunk along. */
    public long pairedReads() {
        return pairedReads.sum();
    }

    /**
     * Hits that were misses because their device already had as many reads in flight as it may
     * ({@value #MAX_IN_FLIGHT_PER_QUEUE_SLOT} per slot of its queue), given-up ones included.
     */
    public long busyMisses() {
        return busyMisses.sum();
    }

    /** Hits' reads of {@code space}'s device in flight now, given-up ones included. */
    int readsInFlight(int space) {
        return inFlight.get(space);
    }

    /** Queued reads given up after the policy's timeout. */
    public long timeouts() {
        return timeouts.sum();
    }
}

package io.flashchunk.cache.compact;

import io.flashchunk.buffer.AlignedBufferPool;
import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.WarningThrottle;
import io.flashchunk.cache.driver.StorageDriver;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compact engine put together: devices found or formatted ({@link CompactStart}), recovered
 * ({@link CompactRecovery}), then reads from any thread ({@link #read}) and chunks offered on a miss
 * ({@link #offer}) going through admission into a bounded queue that one writer thread drains into
 * segments ({@link SegmentWriter#append}: where a miss becomes a flash write).
 *
 * <p>The writer thread also owns checkpoints: it writes one when it must (a reclaimed segment waits
 * for one before it can be reused; segments are reclaimed in batches, so that one checkpoint frees
 * many), when {@code checkpointEverySegments} segments were written since
 * the last (what a crash can lose follows how much the cache changed, not the clock), when asked
 * ({@link #checkpoint}), and at {@link #close}, after sealing the open segment, so that a clean
 * restart finds every chunk. Nothing here knows Cassandra: keys are the adapter's chunk keys.
 */
public final class CompactEngine implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CompactEngine.class);
    /** After a failed checkpoint, the writer does not force another for this long. */
    private static final long CHECKPOINT_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * @param segmentBytes            segment size (a multiple of 4 KiB)
     * @param expectedChunkBytes      the chunk size the index is sized for: one slot per such chunk the flash holds
     * @param reinsertShare           share of a reclaimed segment its read chunks may fill again (0 to 0.5)
     * @param sketchCountersPerKey    admission sketch counters a row per chunk (1: 2 bytes a chunk)
     * @param queueBytes              chunk bytes offered and not yet appended, at most
     * @param checkpointEverySegments segments written between checkpoints, at most
     * @param strict                  refuse to start rather than format devices that hold something unexpected
     * @param forceFormat             per device, whether it may be formatted whatever it holds
     */
    public record Settings(int segmentBytes, int expectedChunkBytes, double reinsertShare, int sketchCountersPerKey,
                           long queueBytes, int checkpointEverySegments, boolean strict, List<Boolean> forceFormat) {
        public Settings {
            if (expectedChunkBytes < 1 || sketchCountersPerKey < 1 || queueBytes < 1 || checkpointEverySegments < 1) {
                throw new IllegalArgumentException("expected chunk bytes, sketch counters, queue bytes and segments "
                        + "between checkpoints must be positive: " + expectedChunkBytes + ", " + sketchCountersPerKey
                        + ", " + queueBytes + ", " + checkpointEverySegments);
            }
        }
    }

    /** A chunk waiting for the writer, or (chunk null) a marker the writer counts down when it gets there. */
    private record Pending(long key, ByteBuffer chunk, CountDownLatch reached) {
    }

    private final Settings settings;
    private final NamedFiles files;
    private final List<StorageDriver> drivers;
    private final SegmentTable table;
    private final CompactChunkIndex index;
    private final VictimAdmission admission;
    private final SegmentWriter writer;
    private final SegmentReader reader;
    private final CompactCheckpointer checkpointer;
    private final CompactStart.Outcome start;
    private final CompactRecovery.Outcome recovered;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final Thread writerThread;
    private volatile boolean closing;
    private volatile boolean checkpointAsked;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder readErrors = new LongAdder();
    private final LongAdder notAdmitted = new LongAdder();
    private final LongAdder queueFull = new LongAdder();
    private final LongAdder writerErrors = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final WarningThrottle errorLog = new WarningThrottle(1, TimeUnit.MINUTES);
    /** System.nanoTime of the last failed checkpoint (writer thread only). */
    private long lastCheckpointFailure = System.nanoTime() - CHECKPOINT_RETRY_NANOS - 1;
    private final AtomicLong checkpoints = new AtomicLong();
    private final AtomicLong failedCheckpoints = new AtomicLong();

    private CompactEngine(List<StorageDriver> drivers, Settings settings, NamedFiles files, LongSupplier clockMillis)
            throws IOException {
        this.settings = settings;
        this.files = files;
        this.drivers = List.copyOf(drivers);
        this.start = CompactStart.open(drivers, settings.segmentBytes(), settings.strict(), settings.forceFormat());
        int spaces = drivers.size();
        SegmentLayout[] layouts = new SegmentLayout[spaces];
        CheckpointAreas[] areas = new CheckpointAreas[spaces];
        int[] segments = new int[spaces];
        long records = 0;
        int perSegment = settings.segmentBytes() / RecordFormat.recordBytes(settings.expectedChunkBytes());
        for (int s = 0; s < spaces; s++) {
            layouts[s] = start.layouts().get(s).segmentLayout();
            areas[s] = start.layouts().get(s).areas();
            segments[s] = layouts[s].segments();
            records += (long) segments[s] * Math.max(1, perSegment);
        }
        StorageDriver[] driverArray = drivers.toArray(StorageDriver[]::new);
        this.table = new SegmentTable(segments);
        this.index = new CompactChunkIndex(records);
        int all = Arrays.stream(segments).sum();
        ReclaimOrder order = new TinyLfuReclaimOrder(all, Math.max(1, all - 2));
        this.admission = new VictimAdmission(records, settings.sketchCountersPerKey());
        SegmentBuffer[] buffers = {new SegmentBuffer(AlignedBuffers.allocate(settings.segmentBytes())),
            new SegmentBuffer(AlignedBuffers.allocate(settings.segmentBytes()))};
        // Reclaimed segments wait for a checkpoint: reclaim a batch at once, so that one checkpoint frees
        // many (a checkpoint writes the whole index) rather than one per segment.
        int batch = Math.max(1, Math.min(settings.checkpointEverySegments(), all / 8));
        this.writer = new SegmentWriter(table, layouts, driverArray, index, order, buffers, false,
                new WriterPolicy(admission, settings.reinsertShare(), batch));
        this.reader = new SegmentReader(table, layouts, driverArray, index, order, writer.buffers(),
                new AlignedBufferPool(Integer.highestOneBit(settings.segmentBytes()), 16L << 20));
        this.recovered = start.formatted()
                ? new CompactRecovery.Outcome(new long[spaces][2], java.util.Map.of(), 1, 0, 0, 0, 0)
                : CompactRecovery.recover(driverArray, areas, layouts, start.instance(), index, table, order, clockMillis);
        this.checkpointer = new CompactCheckpointer(table, index, layouts, driverArray, areas, start.instance(),
                recovered.areaSequences(), recovered.highestSequenceSeen(), clockMillis);
        this.writerThread = new Thread(this::writeLoop, "flashchunk-compact-writer");
        writerThread.setDaemon(true);
        writerThread.start();
        LOG.info("flash cache (compact engine): {} device(s), {} segments of {} MiB, index for {} chunks ({} MiB), "
                        + "{} chunks recovered", spaces, all, settings.segmentBytes() >> 20, records,
                index.bytes() >> 20, recovered.restoredEntries());
    }

    /** Starts the engine on {@code drivers}, one address space each, in order. */
    public static CompactEngine open(List<StorageDriver> drivers, Settings settings, NamedFiles files,
                                     LongSupplier clockMillis) throws IOException {
        return new CompactEngine(drivers, settings, files, clockMillis);
    }

    /**
     * Copies the chunk of {@code key} into {@code into} and returns its length, or -1 on a miss (a
     * record that fails its checks or a device error is a miss too, counted). Any thread.
     */
    public int read(long key, int chunkLength, ByteBuffer into) {
        admission.accessed(key);
        try {
            int length = reader.read(key, chunkLength, into);
            (length == -1 ? misses : hits).increment();
            return length;
        } catch (RecordMismatchException e) {
            refused.increment();
        } catch (IOException e) {
            readErrors.increment();
        }
        misses.increment();
        return -1;
    }

    /**
     * Offers the chunk of {@code key} just read on a miss (position to limit, left unchanged): copied
     * into the writer's queue if admission takes it and the queue has room. Any thread.
     */
    public boolean offer(long key, ByteBuffer chunk) {
        if (closing || !writerThread.isAlive() || !chunk.hasRemaining()) {
            return false;
        }
        if (!admission.admit(key)) {
            notAdmitted.increment();
            return false;
        }
        int bytes = chunk.remaining();
        if (queuedBytes.addAndGet(bytes) > settings.queueBytes()) {
            queuedBytes.addAndGet(-bytes);
            queueFull.increment();
            return false;
        }
        queue.add(new Pending(key, ByteBuffer.allocate(bytes).put(chunk.duplicate()).flip(), null));
        return true;
    }

    /** Waits until the writer has taken every chunk offered before this call; false on timeout. */
    public boolean awaitWritten(long timeout, TimeUnit unit) throws InterruptedException {
        CountDownLatch reached = new CountDownLatch(1);
        queue.add(new Pending(0, null, reached));
        return reached.await(timeout, unit);
    }

    /**
     * Asks the writer for a checkpoint at its next turn. It names the durable segments: chunks still
     * in the open segment are named once it is sealed and written (or at close).
     */
    public void checkpointSoon() {
        checkpointAsked = true;
    }

    private void writeLoop() {
        int sealedAtLastCheckpoint = 0;
        while (!closing || !queue.isEmpty()) {
            Pending pending;
            try {
                pending = queue.poll(50, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                break;
            }
            try {
                if (pending != null && pending.chunk() == null) {
                    pending.reached().countDown();
                } else if (pending != null) {
                    queuedBytes.addAndGet(-pending.chunk().remaining());
                    append(pending);
                }
                if (checkpointAsked || writer.sealed() - sealedAtLastCheckpoint >= settings.checkpointEverySegments()) {
                    checkpointAsked = false;
                    sealedAtLastCheckpoint = writer.sealed();
                    checkpoint("segments written");
                }
            } catch (RuntimeException e) {
                // One chunk's failure must not stop the writer: count it, say it (throttled), go on.
                writerErrors.increment();
                errorLog.warn(LOG, "flash cache: the compact writer failed on a chunk and goes on: {}", e.toString());
            }
        }
        try {
            writer.flush();
        } finally {
            checkpoint("closing");
        }
    }

    private void append(Pending pending) {
        if (writer.append(pending.key(), pending.chunk())) {
            return;
        }
        // A reclaimed segment waiting for a checkpoint: write it, then the chunk has room. After a
        // failed checkpoint, not again for a while (it would fail the same way on every chunk).
        if (table.retiredSegments() > 0 && System.nanoTime() - lastCheckpointFailure > CHECKPOINT_RETRY_NANOS
                && checkpoint("a reclaimed segment waits") && writer.append(pending.key(), pending.chunk())) {
            return;
        }
        dropped.increment();
    }

    /** Writes a checkpoint; returns whether it is durable. */
    private boolean checkpoint(String why) {
        try {
            checkpointer.checkpoint(files);
            checkpoints.incrementAndGet();
            return true;
        } catch (IOException | RuntimeException e) {
            failedCheckpoints.incrementAndGet();
            lastCheckpointFailure = System.nanoTime();
            LOG.warn("flash cache: checkpoint ({}) failed: {}", why, e.toString());
            return false;
        }
    }

    /** What start found and did. */
    public CompactStart.Outcome start() {
        return start;
    }

    /** What recovery brought back. */
    public CompactRecovery.Outcome recovered() {
        return recovered;
    }

    public long entries() {
        return index.entries();
    }

    public long hits() {
        return hits.sum();
    }

    public long misses() {
        return misses.sum();
    }

    /** Reads that met a record other than the one looked up, or damaged bytes: misses, never served. */
    public long refusedRecords() {
        return refused.sum();
    }

    public long readErrors() {
        return readErrors.sum();
    }

    public long notAdmitted() {
        return notAdmitted.sum();
    }

    public long queueFull() {
        return queueFull.sum();
    }

    /** Chunks offered and admitted that the writer could not append (no segment to be had, or too large). */
    public long dropped() {
        return dropped.sum();
    }

    /** Unexpected failures of the writer on a chunk (logged, at most once a minute). */
    public long writerErrors() {
        return writerErrors.sum();
    }

    public long checkpoints() {
        return checkpoints.get();
    }

    public long failedCheckpoints() {
        return failedCheckpoints.get();
    }

    public SegmentWriter writer() {
        return writer;
    }

    /** Stops taking chunks, appends what is queued, seals the open segment and writes a last checkpoint. */
    @Override
    public void close() throws InterruptedException {
        closing = true;
        writerThread.join(TimeUnit.MINUTES.toMillis(1));
        if (writerThread.isAlive()) {
            LOG.warn("flash cache: the writer did not stop within a minute; closing without its last checkpoint");
        }
        for (Pending pending; (pending = queue.poll()) != null; ) {
            if (pending.reached() != null) {
                pending.reached().countDown(); // nothing more will be written: waiters need not wait
            }
        }
    }
}

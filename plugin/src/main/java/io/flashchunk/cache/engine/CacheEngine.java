package io.flashchunk.cache.engine;

import io.flashchunk.buffer.AlignedBufferPool;
import io.flashchunk.cache.WarningThrottle;
import io.flashchunk.cache.admission.VictimAdmission;
import io.flashchunk.cache.checkpoint.CheckpointSchedule;
import io.flashchunk.cache.checkpoint.Checkpointer;
import io.flashchunk.cache.checkpoint.Recovery;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.files.ChunkKeys;
import io.flashchunk.cache.files.NamedFiles;
import io.flashchunk.cache.format.ChunkCompression;
import io.flashchunk.cache.format.ChunkForm;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.read.FlashReadPolicy;
import io.flashchunk.cache.read.SegmentReader;
import io.flashchunk.cache.space.AddressSpaces;
import io.flashchunk.cache.space.DeviceStart;
import io.flashchunk.cache.space.HotChunkMoves;
import io.flashchunk.cache.space.SegmentDiscards;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.cache.space.SpaceReads;
import io.flashchunk.cache.write.SegmentBuffer;
import io.flashchunk.cache.write.SegmentWriter;
import io.flashchunk.cache.write.Writer;
import io.flashchunk.cache.write.WriterPolicy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine put together: devices found or formatted ({@link DeviceStart}), recovered
 * ({@link Recovery}), then reads from any thread ({@link #read}) and chunks offered on a miss
 * ({@link #offer}) going through admission into a bounded queue that one writer thread drains into
 * segments ({@link SegmentWriter#append}: where a miss becomes a flash write).
 *
 * <p>The writer thread also owns checkpoints: it writes one when it must (a doomed segment waits for
 * one before it can be reused; one checkpoint releases every segment doomed before it, and each
 * serves its chunks until it is reused), when {@code checkpointEverySegments} segments were written since
 * the last, when chunks appended since the last have waited {@code checkpointIntervalMillis} and
 * are worth a checkpoint's bytes (both as {@link CheckpointSchedule} says), when asked
 * ({@link #checkpoint}), and at {@link #close}, after sealing the open segment, so that a clean restart
 * finds every chunk. Each checkpoint names every chunk appended before it: the open segment's records
 * so far are written first ({@link SegmentWriter#persist}), and the segment goes on filling, so that
 * frequent checkpoints do not cut segments short. Nothing here knows Cassandra: keys are the
 * adapter's chunk keys.
 *
 * <p>Invalidation ({@link #invalidate}) is synchronous for readers and leaves the index to its one
 * writer: the key joins a set every read checks (one size read while it is empty) until the writer
 * has taken every invalidation of it out of the index; and the time of the invalidation, taken after
 * the key joined the set, keeps out every offer whose file read began before it (its bytes may be the
 * old ones). So a read that began at or after that time found the key in the set or out of the index.
 */
public final class CacheEngine implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CacheEngine.class);
    /**
     * Recovered segments' summaries read for samples when the writer is idle (each idle pass is 50 ms:
     * at most 80 small reads a second), and one every so many takes under load, so the reads stay a
     * trickle beside the node's own.
     */
    private static final int SAMPLES_WHEN_IDLE = 4;
    private static final int TAKES_PER_SAMPLE = 64;
    /** The writer's wait for work when idle, and so the pace of its idle steps. */
    private static final long IDLE_TURN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /**
     * Keys of dead files the writer looks up per chunk it takes, and per turn when idle (it then
     * goes on without pause): a few index lookups beside each chunk's append, so the sweep does not
     * hold up the chunks queued behind it.
     */
    private static final int SWEEP_PER_TAKE = 64;
    private static final int SWEEP_WHEN_IDLE = 4096;
    /** Released segments with no live chunk freed per turn of the writer: a state change each, no read. */
    private static final int EMPTY_RECLAIMS_PER_TURN = 64;

    public static final class Settings {
        private final int segmentBytes;
        private final int expectedChunkBytes;
        private final double reinsertShare;
        private final int sketchCountersPerKey;
        private final int doorkeeperBitsPerKey;
        private final int sampleReadsPerKey;
        private final long queueBytes;
        private final int checkpointEverySegments;
        private final long checkpointIntervalMillis;
        private final boolean strict;
        private final List<Boolean> forceFormat;
        private final List<Boolean> discard;
        private final long moveBytesPerSecond;

        /**
         * @param segmentBytes            segment size (a multiple of 4 KiB)
         * @param expectedChunkBytes      the chunk size the index is sized for: one slot per such chunk the flash holds
         * @param reinsertShare           share of a reclaimed segment its read chunks may fill again (0 to 0.5)
         * @param sketchCountersPerKey    admission sketch counters a row per chunk (1: 2 bytes a chunk; 0:
         *     {@link VictimAdmission#DEFAULT_SKETCH_COUNTERS})
         * @param doorkeeperBitsPerKey    bits per chunk of the admission sketch's doorkeeper (0: none)
         * @param sampleReadsPerKey       reads per chunk the admission sketch counts before it halves its counts
         * @param queueBytes              chunk bytes offered and not yet appended, at most
         * @param checkpointEverySegments segments written between checkpoints, at most
         * @param checkpointIntervalMillis the longest a chunk appended stays unnamed by a checkpoint (on the engine's
         *     clock), but in a cache whose checkpoint is larger than a segment also until
         *     the chunks appended outweigh it ({@link CheckpointSchedule})
         * @param strict                  refuse to start rather than format devices that hold something unexpected
         * @param forceFormat             per device, whether it may be formatted whatever it holds
         */
        public Settings(int segmentBytes, int expectedChunkBytes, double reinsertShare, int sketchCountersPerKey,
                        int doorkeeperBitsPerKey, int sampleReadsPerKey, long queueBytes, int checkpointEverySegments,
                        long checkpointIntervalMillis, boolean strict, List<Boolean> forceFormat) {
            this(segmentBytes, expectedChunkBytes, reinsertShare, sketchCountersPerKey, doorkeeperBitsPerKey,
                    sampleReadsPerKey, queueBytes, checkpointEverySegments, checkpointIntervalMillis, strict,
                    forceFormat, List.of(), 0);
        }

        private Settings(int segmentBytes, int expectedChunkBytes, double reinsertShare, int sketchCountersPerKey,
                         int doorkeeperBitsPerKey, int sampleReadsPerKey, long queueBytes, int checkpointEverySegments,
                         long checkpointIntervalMillis, boolean strict, List<Boolean> forceFormat, List<Boolean> discard,
                         long moveBytesPerSecond) {
            if (expectedChunkBytes < 1 || sketchCountersPerKey < 0 || doorkeeperBitsPerKey < 0
                    || sampleReadsPerKey < 1 || queueBytes < 1 || checkpointEverySegments < 1
                    || checkpointIntervalMillis < 1) {
                throw new IllegalArgumentException("expected chunk bytes, sample reads, queue bytes, segments "
                        + "between checkpoints and the checkpoint interval must be positive, sketch counters and "
                        + "doorkeeper bits not negative: " + expectedChunkBytes + ", " + sampleReadsPerKey + ", "
                        + queueBytes + ", " + checkpointEverySegments + ", " + checkpointIntervalMillis + ", "
                        + sketchCountersPerKey + ", " + doorkeeperBitsPerKey);
            }
            this.segmentBytes = segmentBytes;
            this.expectedChunkBytes = expectedChunkBytes;
            this.reinsertShare = reinsertShare;
            this.sketchCountersPerKey = sketchCountersPerKey;
            this.doorkeeperBitsPerKey = doorkeeperBitsPerKey;
            this.sampleReadsPerKey = sampleReadsPerKey;
            this.queueBytes = queueBytes;
            this.checkpointEverySegments = checkpointEverySegments;
            this.checkpointIntervalMillis = checkpointIntervalMillis;
            this.strict = strict;
            this.forceFormat = forceFormat;
            this.discard = List.copyOf(discard);
            if (moveBytesPerSecond < 0) {
                throw new IllegalArgumentException("bytes moved a second must not be negative, got " + moveBytesPerSecond);
            }
            this.moveBytesPerSecond = moveBytesPerSecond;
        }

        /**
         * These settings, with the devices whose free segments are discarded before reuse (per device,
         * in order; a device past the list's end: not discarded).
         */
        public Settings withDiscard(List<Boolean> perDevice) {
            return new Settings(segmentBytes, expectedChunkBytes, reinsertShare, sketchCountersPerKey,
                    doorkeeperBitsPerKey, sampleReadsPerKey, queueBytes, checkpointEverySegments,
                    checkpointIntervalMillis, strict, forceFormat, perDevice, moveBytesPerSecond);
        }

        /**
         * These settings, with hot chunks read from a loaded device written again into a less loaded
         * one, at most {@code bytesPerSecond} a second (0: never; {@link HotChunkMoves}). Not
         * with one device.
         */
        public Settings withHotChunkMoves(long bytesPerSecond) {
            return new Settings(segmentBytes, expectedChunkBytes, reinsertShare, sketchCountersPerKey,
                    doorkeeperBitsPerKey, sampleReadsPerKey, queueBytes, checkpointEverySegments,
                    checkpointIntervalMillis, strict, forceFormat, discard, bytesPerSecond);
        }

        /** Chunk bytes moved a second at most to balance reads across devices (0: none). */
        public long moveBytesPerSecond() {
            return moveBytesPerSecond;
        }

        /** Whether the free segments of device {@code device} are discarded before reuse. */
        public boolean discards(int device) {
            return device < discard.size() && discard.get(device);
        }

        boolean discardsAny() {
            return discard.contains(Boolean.TRUE);
        }

        public int segmentBytes() {
            return segmentBytes;
        }

        public int expectedChunkBytes() {
            return expectedChunkBytes;
        }

        public double reinsertShare() {
            return reinsertShare;
        }

        public int sketchCountersPerKey() {
            return sketchCountersPerKey;
        }

        public int doorkeeperBitsPerKey() {
            return doorkeeperBitsPerKey;
        }

        public int sampleReadsPerKey() {
            return sampleReadsPerKey;
        }

        public long queueBytes() {
            return queueBytes;
        }

        public int checkpointEverySegments() {
            return checkpointEverySegments;
        }

        public long checkpointIntervalMillis() {
            return checkpointIntervalMillis;
        }

        public boolean strict() {
            return strict;
        }

        public List<Boolean> forceFormat() {
            return forceFormat;
        }

        /** The admission sketch's counters a row per chunk: as set, or the default. */
        int sketchCounters() {
            return sketchCountersPerKey > 0 ? sketchCountersPerKey : VictimAdmission.DEFAULT_SKETCH_COUNTERS;
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof Settings)) {
                return false;
            }
            Settings other = (Settings) o;
            return segmentBytes == other.segmentBytes
                    && expectedChunkBytes == other.expectedChunkBytes
                    && Double.compare(reinsertShare, other.reinsertShare) == 0
                    && sketchCountersPerKey == other.sketchCountersPerKey
                    && doorkeeperBitsPerKey == other.doorkeeperBitsPerKey
                    && sampleReadsPerKey == other.sampleReadsPerKey
                    && queueBytes == other.queueBytes
                    && checkpointEverySegments == other.checkpointEverySegments
                    && checkpointIntervalMillis == other.checkpointIntervalMillis
                    && strict == other.strict
                    && Objects.equals(forceFormat, other.forceFormat)
                    && discard.equals(other.discard)
                    && moveBytesPerSecond == other.moveBytesPerSecond;
        }

        @Override
        public int hashCode() {
            return Objects.hash(segmentBytes, expectedChunkBytes, reinsertShare, sketchCountersPerKey,
                    doorkeeperBitsPerKey, sampleReadsPerKey, queueBytes, checkpointEverySegments,
                    checkpointIntervalMillis, strict, forceFormat, discard, moveBytesPerSecond);
        }

        @Override
        public String toString() {
            return "Settings[segmentBytes=" + segmentBytes + ", expectedChunkBytes=" + expectedChunkBytes
                    + ", reinsertShare=" + reinsertShare + ", sketchCountersPerKey=" + sketchCountersPerKey
                    + ", doorkeeperBitsPerKey=" + doorkeeperBitsPerKey + ", sampleReadsPerKey=" + sampleReadsPerKey
                    + ", queueBytes=" + queueBytes + ", checkpointEverySegments=" + checkpointEverySegments
                    + ", checkpointIntervalMillis=" + checkpointIntervalMillis + ", strict=" + strict
                    + ", forceFormat=" + forceFormat + ", discard=" + discard
                    + ", moveBytesPerSecond=" + moveBytesPerSecond + "]";
        }
    }

    /** How long an invalidation's time is kept: an offer whose file read began longer ago than this is not expected. */
    private static final long INVALIDATION_MEMORY_NANOS = TimeUnit.MINUTES.toNanos(10);

    private enum Kind { CHUNK, MOVE, INVALIDATION, DAMAGED, FILES_DIED, MARKER, CHECKPOINTS_SETTLED, DEAD_FILES_SWEPT, CHECKPOINT, FULL_CHECKPOINT }

    /**
     * What the writer is to do: append a chunk (read from its file from {@code readStartedNanos}),
     * write again a hot chunk a hit read from {@code from} from {@code readStartedNanos} on, take an
     * invalidated key out of the index, count down {@code reached} when it gets there, or
     * write a checkpoint and then count down {@code reached} (setting {@code durable} if it is), or
     * drop the entry of a key whose record failed its checksum.
     */
    private static final class Pending {
        private final Kind kind;
        private final long key;
        private final ByteBuffer chunk;
        private final long readStartedNanos;
        private final CountDownLatch reached;
        private final boolean[] durable;
        private final long from;
        private final long fromSequence;
        /** A chunk (or move) the writer stores compressed when that pays ({@link ChunkCompression}). */
        private final boolean compress;

        private Pending(Kind kind, long key, ByteBuffer chunk, long readStartedNanos, CountDownLatch reached,
                        boolean[] durable) {
            this(kind, key, chunk, readStartedNanos, reached, durable, RecordAddress.NONE, -1, false);
        }

        private Pending(Kind kind, long key, ByteBuffer chunk, long readStartedNanos, CountDownLatch reached,
                        boolean[] durable, long from, long fromSequence, boolean compress) {
            this.compress = compress;
            this.from = from;
            this.fromSequence = fromSequence;
            this.kind = kind;
            this.key = key;
            this.chunk = chunk;
            this.readStartedNanos = readStartedNanos;
            this.reached = reached;
            this.durable = durable;
        }

        public Kind kind() {
            return kind;
        }

        public long key() {
            return key;
        }

        public ByteBuffer chunk() {
            return chunk;
        }

        public long readStartedNanos() {
            return readStartedNanos;
        }

        public CountDownLatch reached() {
            return reached;
        }

        public boolean[] durable() {
            return durable;
        }

        public long from() {
            return from;
        }

        public long fromSequence() {
            return fromSequence;
        }

        public boolean compress() {
            return compress;
        }

        static Pending chunk(long key, ByteBuffer chunk, long readStartedNanos, boolean compress) {
            return new Pending(Kind.CHUNK, key, chunk, readStartedNanos, null, null, RecordAddress.NONE, -1, compress);
        }

        static Pending move(long key, ByteBuffer chunk, long readStartedNanos, long from, long fromSequence,
                            boolean compress) {
            return new Pending(Kind.MOVE, key, chunk, readStartedNanos, null, null, from, fromSequence, compress);
        }

        static Pending invalidation(long key) {
            return new Pending(Kind.INVALIDATION, key, null, 0, null, null);
        }

        static Pending damaged(long key) {
            return new Pending(Kind.DAMAGED, key, null, 0, null, null);
        }

        static Pending filesDied() {
            return new Pending(Kind.FILES_DIED, 0, null, 0, null, null);
        }

        static Pending marker(CountDownLatch reached) {
            return new Pending(Kind.MARKER, 0, null, 0, reached, null);
        }

        static Pending checkpointsSettled(CountDownLatch reached) {
            return new Pending(Kind.CHECKPOINTS_SETTLED, 0, null, 0, reached, null);
        }

        static Pending deadFilesSwept(CountDownLatch reached) {
            return new Pending(Kind.DEAD_FILES_SWEPT, 0, null, 0, reached, null);
        }

        static Pending checkpoint(CountDownLatch reached, boolean[] durable, boolean full) {
            return new Pending(full ? Kind.FULL_CHECKPOINT : Kind.CHECKPOINT, 0, null, 0, reached, durable);
        }

        @Override
        public String toString() {
            return "Pending[kind=" + kind + ", key=" + key + ", chunk=" + chunk
                    + ", readStartedNanos=" + readStartedNanos + ", reached=" + reached + ", durable=" + durable
                    + ", from=" + from + ", fromSequence=" + fromSequence + ", compress=" + compress + "]";
        }
    }

    private final Settings settings;
    private final NamedFiles files;
    private final List<StorageDriver> drivers;
    private final SegmentTable table;
    private final ChunkIndex index;
    /** The writer's changes to the index (invalidations, damaged records). */
    private final VictimAdmission admission;
    private final SegmentWriter segmentWriter;
    private final Writer writer;
    private final SegmentReader reader;
    private final DeviceStart.Outcome start;
    private final Recovery.Outcome recovered;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    /** Waiting for the checkpoint under way to end ({@link #awaitCheckpointsSettled}); the writer's alone. */
    private final List<CountDownLatch> awaitingSettled = new ArrayList<>();
    /** Waiting for the dead files' chunks to have left the index (the writer's alone). */
    private final List<CountDownLatch> awaitingSwept = new ArrayList<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final Thread writerThread;
    /** Discards of freed segments, where a device's settings ask for them; else null. */
    private final SegmentDiscards discards;
    private volatile boolean closing;
    /** Whether the writer's last act, the checkpoint at close, was durable. */
    private volatile boolean closingCheckpointDurable;
    private final AddressSpaces addressSpaces;
    private volatile boolean checkpointAsked;
    private final AtomicBoolean filesDiedQueued = new AtomicBoolean();
    /** Files died and not yet handed to the writer. */
    private final ConcurrentLinkedQueue<Integer> diedFiles = new ConcurrentLinkedQueue<>();
    /** Counted down once the writer has drawn samples for every recovered segment (see SegmentWriter.sampleRecovered). */
    private final CountDownLatch recoveredSampled = new CountDownLatch(1);
    private final LongAdder refused = new LongAdder();
    private final LongAdder damaged = new LongAdder();
    private final LongAdder readErrors = new LongAdder();
    private final LongAdder notAdmitted = new LongAdder();
    private final LongAdder queueFull = new LongAdder();
    private final LongAdder writerErrors = new LongAdder();
    private final LongAdder alreadyCached = new LongAdder();
    // Chunks the writer compressed, their bytes before and after, and those it stored as they were
    // because compressing saved too little: what compression buys an operator, from the node's own data.
    private final LongAdder compressedChunks = new LongAdder();
    private final LongAdder compressedChunkBytes = new LongAdder();
    private final LongAdder compressedPayloadBytes = new LongAdder();
    private final LongAdder storedRawNotWorthCompressing = new LongAdder();
    private final LongAdder offeredBeforeInvalidation = new LongAdder();
    private final LongAdder invalidations = new LongAdder();
    /** Hot chunks moved off a loaded device into a less loaded one (written again). */
    private final LongAdder moved = new LongAdder();
    /** Moves of hot chunks off loaded devices, or null: one device, or none asked for. */
    private final HotChunkMoves moves;
    /** Each space's flash reads and the time they took, as the reader counts them. */
    private final SpaceReads load;
    /**
     * Invalidated keys, each with how many of its invalidations the writer has still to take out of
     * the index: every read misses them. A count, not a set: a second invalidation while the first is
     * queued must keep the key missed after the writer took the first.
     */
    private final Map<Long, Integer> awaitingRemoval = new ConcurrentHashMap<>();
    // When each key was last invalidated (nanoClock): offers whose read began before are old bytes.
    private final Map<Long, Long> invalidatedAt = new ConcurrentHashMap<>();
    /** System.nanoTime or a test's: the time of invalidations, as offers' read starts are given on it. */
    private final LongSupplier nanoClock;
    /** The nanoClock at the writer's last pruning of {@link #invalidatedAt} (writer thread only). */
    private long lastPruneNanos;
    private final WarningThrottle errorLog = new WarningThrottle(1, TimeUnit.MINUTES);
    private final WarningThrottle mismatchLog = new WarningThrottle(1, TimeUnit.MINUTES);
    private final WarningThrottle compressionUnavailable = new WarningThrottle(1, TimeUnit.HOURS);
    private final LongSupplier clockMillis;

    private CacheEngine(List<StorageDriver> drivers, Settings settings, NamedFiles files, LongSupplier clockMillis,
                          LongSupplier nanoClock, FlashReadPolicy readPolicy) throws IOException {
        this.settings = settings;
        this.files = files;
        this.clockMillis = clockMillis;
        this.nanoClock = nanoClock;
        this.lastPruneNanos = nanoClock.getAsLong();
        this.drivers = List.copyOf(drivers);
        this.start = DeviceStart.open(drivers, settings.segmentBytes(), settings.strict(), settings.forceFormat(),
                clockMillis);
        AddressSpaces addressSpaces = start.spaces(drivers);
        this.addressSpaces = addressSpaces;
        int spaces = addressSpaces.count();
        int[] segments = addressSpaces.segmentsPerSpace();
        long records = 0;
        for (int space = 0; space < spaces; space++) {
            int sectorBytes = addressSpaces.layout(space).sectorBytes();
            int perSegment = settings.segmentBytes() / RecordFormat.recordBytes(settings.expectedChunkBytes(), sectorBytes);
            records += (long) segments[space] * Math.max(1, perSegment);
        }
        int all = Arrays.stream(segments).sum();
        LongPredicate liveKey = key -> files.isLive(ChunkKeys.fileId(key));
        int sketchCounters = settings.sketchCounters();
        this.admission = new VictimAdmission(records, sketchCounters, settings.doorkeeperBitsPerKey(),
                settings.sampleReadsPerKey(), liveKey);
        int window = SegmentBuffer.windowFor(settings.segmentBytes());
        // doomed segments wait for a checkpoint, and one releases all doomed before it
        int batch = EngineParts.reclaimBatch(all, settings.checkpointEverySegments());
        SpaceReads load = new SpaceReads(spaces);
        this.load = load;
        this.moves = settings.moveBytesPerSecond() > 0 && spaces > 1
                ? new HotChunkMoves(load, settings.moveBytesPerSecond(), nanoClock.getAsLong(), readPolicy.gate()::inUse)
                : null;
        EngineParts parts = EngineParts.wire(addressSpaces, new EngineParts.Spec(
                records, true, new WriterPolicy(admission, settings.reinsertShare(), batch, load, liveKey, moves,
                        key -> files.storesUncompressed(ChunkKeys.fileId(key))),
                new AlignedBufferPool(Integer.highestOneBit(settings.segmentBytes()), 16L << 20), readPolicy));
        this.table = parts.table;
        this.index = parts.index;
        this.segmentWriter = parts.segmentWriter;
        this.reader = parts.reader;
        this.recovered = start.formatted()
                ? new Recovery.Outcome(new long[spaces][2], java.util.Map.of(), 1, 0, 0, 0, 0, List.of(),
                        java.util.stream.IntStream.generate(() -> -1).limit(spaces).toArray(), 0, new int[spaces])
                : parts.recover(start.instance());
        reserveSequences();
        Checkpointer checkpointer = parts.checkpointer(start.instance(), recovered, clockMillis);
        CheckpointSchedule schedule = new CheckpointSchedule(settings.checkpointEverySegments(),
                settings.checkpointIntervalMillis(), settings.segmentBytes(), checkpointer.recoveredBytes(), clockMillis);
        this.writer = parts.writer(checkpointer, schedule, files, clockMillis);
        this.discards = settings.discardsAny() ? parts.discardFreedSegments(discardingSpaces(settings, spaces)) : null;
        // Before the writer's first step: it judges recovered chunks by whether their files are live.
        files.recovered(recovered.files(), recovered.nextFileId());
        this.writerThread = new Thread(this::writeLoop, "flashchunk-writer");
        writerThread.setDaemon(true);
        writerThread.start();
        double perChunk = MemoryBudget.bytesPerChunk(records, sketchCounters, settings.doorkeeperBitsPerKey(),
                settings.segmentBytes());
        LOG.info("flash cache engine: {} device(s), {} segments of {} MiB written from two {} KiB buffers, "
                        + "index for {} chunks ({} MiB), "
                        + "admission sketch {} MiB ({} counters a row per chunk{}), memory about {} MiB in all "
                        + "({} bytes a chunk), {} chunks recovered", spaces, all,
                settings.segmentBytes() >> 20, window >> 10, records, index.bytes() >> 20, admission.bytes() >> 20,
                sketchCounters, settings.sketchCountersPerKey() > 0 ? "" : ", auto",
                Math.round(perChunk * records / (1 << 20)), String.format(java.util.Locale.ROOT, "%.1f", perChunk),
                recovered.restoredEntries());
    }

    /**
     * Starts the engine on {@code drivers}, one address space each, in order; hits read flash as
     * {@link FlashReadPolicy#DEFAULT}, and invalidations are timed by System.nanoTime.
     */
    public static CacheEngine open(List<StorageDriver> drivers, Settings settings, NamedFiles files,
                                     LongSupplier clockMillis) throws IOException {
        return open(drivers, settings, files, clockMillis, System::nanoTime, FlashReadPolicy.DEFAULT);
    }

    /**
     * Starts the engine on {@code drivers}, one address space each, in order; hits read flash as
     * {@code readPolicy} says.
     *
     * @param clockMillis the time of checkpoints (System.currentTimeMillis or a test's)
     * @param nanoClock   the time of invalidations, on which offers give their file reads' start
     *                    (System.nanoTime or a test's)
     */
    public static CacheEngine open(List<StorageDriver> drivers, Settings settings, NamedFiles files,
                                     LongSupplier clockMillis, LongSupplier nanoClock, FlashReadPolicy readPolicy)
            throws IOException {
        return new CacheEngine(drivers, settings, files, clockMillis, nanoClock, readPolicy);
    }

    /**
     * Copies the chunk of {@code key} into {@code into} and returns its length, or -1 on a miss (a
     * record that fails its checks or a device error is a miss too, counted). Any thread.
     */
    public int read(long key, int chunkLength, ByteBuffer into) {
        if (chunkLength > into.remaining()) {
            throw new IllegalArgumentException("chunk length " + chunkLength + " with room for " + into.remaining());
        }
        SegmentReader.Hit hit = read(key, chunkLength, SegmentReader.NO_NEXT);
        return hit == null ? -1 : hit.copyAndRelease(into);
    }

    /**
     * The chunk of {@code key} (the caller releases the hit once), or null on a miss (a record that
     * fails its checks or a device error is a miss too, counted); with {@code nextKey}, maybe the next
     * chunk read along ({@link SegmentReader#read(long, int, long)}). Any thread.
     */
    public SegmentReader.Hit read(long key, int chunkLength, long nextKey) {
        return read(key, chunkLength, nextKey, 0);
    }

    /**
     * As {@link #read(long, int, long)}, reading {@code expectedRecordBytes} of the record from flash
     * ({@link SegmentReader#read(long, int, long, int)}: 0 for the longest a chunk can take).
     */
    public SegmentReader.Hit read(long key, int chunkLength, long nextKey, int expectedRecordBytes) {
        admission.accessed(key);
        // Taken before the set is looked at when chunks may move: an invalidation that the look misses is
        // timed after it, so invalidatedSince keeps the move out (invalidate() takes its time after the set).
        long started = moves != null ? nanoClock.getAsLong() : 0;
        if (!awaitingRemoval.isEmpty() && awaitingRemoval.containsKey(key)) {
            return null;
        }
        try {
            SegmentReader.Hit hit = reader.read(key, chunkLength, nextKey, expectedRecordBytes);
            if (hit != null && moves != null && hit.fromFlash() && moves.take(RecordAddress.space(hit.flashAddress()),
                    hit.sequence(), hit.chunk().remaining())) {
                queueMove(key, hit, started);
            }
            return hit;
        } catch (RecordMismatchException e) {
            (e.damaged() ? damaged : refused).increment();
            if (e.damaged()) {
                // Damaged bytes stay damaged: the writer drops the entry, so later reads miss without a flash read.
                queue.add(Pending.damaged(key));
            }
            mismatchLog.warn(LOG, "flash cache: a record read for a hit was not served (a miss): {}", e.getMessage());
        } catch (IOException e) {
            readErrors.increment();
        }
        return null;
    }

    /**
     * Whether a follower read along with an earlier hit may be served now: not invalidated since (an
     * invalidation's key stays in the checked set until the index no longer has it, so checking the set
     * before the index misses none), and the index still points at the record read.
     */
    public boolean claim(SegmentReader.Follower follower) {
        admission.accessed(follower.key());
        if ((!awaitingRemoval.isEmpty() && awaitingRemoval.containsKey(follower.key()))
                || !reader.stillCurrent(follower)) {
            return false;
        }
        return true;
    }

    /**
     * A hit read from a loaded device, for the writer to write again in a less loaded one, if the queue
     * has room: compressed again if it was read compressed, unless its file's chunks are now stored as
     * they are.
     */
    private void queueMove(long key, SegmentReader.Hit hit, long readStartedNanos) {
        int bytes = hit.chunk().remaining();
        if (closing || !writerThread.isAlive()) {
            return;
        }
        if (queuedBytes.addAndGet(bytes) > settings.queueBytes()) {
            queuedBytes.addAndGet(-bytes);
            return;
        }
        queue.add(Pending.move(key, ByteBuffer.allocate(bytes).put(hit.chunk().duplicate()).flip(), readStartedNanos,
                hit.flashAddress(), hit.sequence(),
                hit.form() == ChunkForm.LZ4 && !files.storesUncompressed(ChunkKeys.fileId(key))));
    }

    /** As {@link #offer(long, ByteBuffer, long)} for bytes no invalidation can race with (tests, the simulator). */
    public boolean offer(long key, ByteBuffer chunk) {
        return offer(key, chunk, nanoClock.getAsLong());
    }

    /** As {@link #offer(long, ByteBuffer)}, stored compressed when {@code compress} and that pays. */
    public boolean offer(long key, ByteBuffer chunk, boolean compress) {
        return offer(key, chunk, nanoClock.getAsLong(), compress);
    }

    /** As {@link #offer(long, ByteBuffer, long, boolean)}, to be stored as it is. */
    public boolean offer(long key, ByteBuffer chunk, long readStartedNanos) {
        return offer(key, chunk, readStartedNanos, false);
    }

    /**
     * Offers the chunk of {@code key} just read on a miss (position to limit, left unchanged): copied
     * into the writer's queue if the key is not cached, admission takes it and the queue has room.
     * The writer drops it if the key is invalidated after {@code readStartedNanos} (the engine's
     * nanoClock, taken before its file read began). With {@code compress}, the writer stores it
     * compressed if that saves enough ({@link ChunkCompression}). Any thread.
     */
    public boolean offer(long key, ByteBuffer chunk, long readStartedNanos, boolean compress) {
        if (closing || !writerThread.isAlive() || !chunk.hasRemaining()) {
            return false;
        }
        if (index.find(key) != RecordAddress.NONE) {
            alreadyCached.increment();
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
        queue.add(Pending.chunk(key, ByteBuffer.allocate(bytes).put(chunk.duplicate()).flip(), readStartedNanos,
                compress));
        return true;
    }

    /**
     * Forgets the chunk of {@code key}: no read that starts after this call serves it, and no offer
     * whose file read began before this call is written. Any thread.
     */
    public void invalidate(long key) {
        // Into the set before the time is taken: a read that starts at or after the time finds the key
        // there (or already out of the index), so a read judged by invalidatedSince is never old bytes.
        awaitingRemoval.merge(key, 1, Integer::sum);
        long now = nanoClock.getAsLong();
        invalidatedAt.merge(key, now, (held, taken) -> taken - held >= 0 ? taken : held); // the later, nanoTime-wise
        invalidations.increment();
        queue.add(Pending.invalidation(key));
    }

    /**
     * A file died (its {@link NamedFiles#isLive} is false from now on): its chunks leave the index,
     * and the segments that leaves mostly dead are reclaimed first. Any thread.
     */
    public void fileDied(int fileId) {
        diedFiles.add(fileId);
        // One queued at a time: a DROP of a thousand files is one turn of the writer, not a thousand.
        if (filesDiedQueued.compareAndSet(false, true)) {
            queue.add(Pending.filesDied());
        }
    }

    /** Whether {@code key} was invalidated at or after {@code sinceNanos} (on the engine's nanoClock). */
    public boolean invalidatedSince(long key, long sinceNanos) {
        Long at = invalidatedAt.get(key);
        return at != null && at - sinceNanos >= 0;
    }

    /** Waits until the writer has taken every chunk offered before this call; false on timeout. */
    public boolean awaitWritten(long timeout, TimeUnit unit) throws InterruptedException {
        CountDownLatch reached = new CountDownLatch(1);
        queue.add(Pending.marker(reached));
        return reached.await(timeout, unit);
    }

    /**
     * Waits until the writer has taken every chunk offered before this call and no checkpoint it
     * started is under way (a full one in steps has ended, durable or failed: {@link #checkpoints},
     * {@link #failedCheckpoints}); false on timeout.
     */
    public boolean awaitCheckpointsSettled(long timeout, TimeUnit unit) throws InterruptedException {
        CountDownLatch reached = new CountDownLatch(1);
        queue.add(Pending.checkpointsSettled(reached));
        return reached.await(timeout, unit);
    }

    /**
     * Waits until the chunks of every file that died before this call have left the index (the
     * segments that left mostly dead are doomed by then); false on timeout.
     */
    public boolean awaitDeadFilesSwept(long timeout, TimeUnit unit) throws InterruptedException {
        CountDownLatch reached = new CountDownLatch(1);
        queue.add(Pending.deadFilesSwept(reached));
        return reached.await(timeout, unit);
    }

    /**
     * Has the writer write a checkpoint once it has taken every chunk offered before this call (it
     * names every chunk appended before it); returns whether it is durable, or false if it did not
     * finish in time.
     */
    public boolean checkpoint(long timeout, TimeUnit unit) throws InterruptedException {
        return checkpoint(timeout, unit, false);
    }

    /**
     * As {@link #checkpoint(long, TimeUnit)}, a full checkpoint when {@code full} (a copy of the whole
     * index, whatever a delta would do: what a release before checkpoint deltas reads, and what a
     * restart recovers with no summary to read), else a delta where one is due.
     */
    public boolean checkpoint(long timeout, TimeUnit unit, boolean full) throws InterruptedException {
        CountDownLatch reached = new CountDownLatch(1);
        boolean[] durable = new boolean[1];
        queue.add(Pending.checkpoint(reached, durable, full));
        // The latch's count-down happens after the writer set the flag: its await sees the flag.
        return reached.await(timeout, unit) && durable[0];
    }

    /** Waits until the writer has drawn samples for every segment recovery brought back (tests). */
    public boolean awaitRecoveredSampled(long timeout, TimeUnit unit) throws InterruptedException {
        return recoveredSampled.await(timeout, unit);
    }

    /** Asks the writer for a checkpoint at its next turn; it names every chunk appended before it. */
    public void checkpointSoon() {
        checkpointAsked = true;
    }

    private void writeLoop() {
        boolean unsampled = true;
        long checkpointsSeen = writer.checkpoints();
        long lastIdleSample = System.nanoTime() - IDLE_TURN_NANOS;
        boolean emptyReleasedLeft = false;
        long takes = 0;
        while (!closing || !queue.isEmpty()) {
            Pending pending;
            try {
                // A full checkpoint under way goes on in steps between chunks, and without pause when idle
                // unless it waits for its own writes; so does the sweep of dead files' chunks.
                pending = segmentWriter.deadFilesPending() ? queue.poll()
                        : !writer.checkpointUnderWay() ? queue.poll(50, TimeUnit.MILLISECONDS)
                        : writer.checkpointWaitsForWrites() ? queue.poll(1, TimeUnit.MILLISECONDS) : queue.poll();
            } catch (InterruptedException e) {
                break;
            }
            try {
                if (pending != null) {
                    take(pending);
                }
                // Idle: a few summaries each 50 ms of real time, however fast a sweep or a checkpoint in
                // steps turns the loop (a pace, not a moment anything waits for: not the injected clock).
                boolean idleTurn = pending == null && System.nanoTime() - lastIdleSample >= IDLE_TURN_NANOS;
                if (unsampled && (idleTurn || pending != null && ++takes % TAKES_PER_SAMPLE == 0)) {
                    if (idleTurn) {
                        lastIdleSample = System.nanoTime();
                    }
                    unsampled = segmentWriter.sampleRecovered(pending == null ? SAMPLES_WHEN_IDLE : 1);
                    if (!unsampled) {
                        recoveredSampled.countDown();
                    }
                }
                if (segmentWriter.deadFilesPending()) {
                    segmentWriter.sweepDeadFiles(pending == null ? SWEEP_WHEN_IDLE : SWEEP_PER_TAKE);
                }
                pruneInvalidations();
                if (moves != null) {
                    moves.tick(nanoClock.getAsLong(), segmentWriter.nextRecordSequence());
                }
                // Cleared only when it was set: a request made after this read stays for the next pass,
                // and one made between the read and the clear is covered by the checkpoint that follows.
                boolean asked = checkpointAsked;
                if (asked) {
                    checkpointAsked = false;
                }
                writer.checkpointIfDue(asked);
                if (writer.checkpoints() != checkpointsSeen || emptyReleasedLeft) {
                    // A checkpoint released doomed segments: those left with no live chunk (a dropped
                    // table's) are free now rather than when the writer needs them, a few a turn.
                    checkpointsSeen = writer.checkpoints();
                    emptyReleasedLeft = segmentWriter.reclaimEmptyReleased(EMPTY_RECLAIMS_PER_TURN);
                }
                if (!awaitingSwept.isEmpty() && !segmentWriter.deadFilesPending()) {
                    awaitingSwept.forEach(CountDownLatch::countDown);
                    awaitingSwept.clear();
                }
                if (!awaitingSettled.isEmpty() && !writer.checkpointUnderWay()) {
                    awaitingSettled.forEach(CountDownLatch::countDown);
                    awaitingSettled.clear();
                }
            } catch (RuntimeException e) {
                // One chunk's failure must not stop the writer: count it, say it (throttled), go on.
                writerErrors.increment();
                errorLog.warn(LOG, "flash cache: the writer failed on a chunk and goes on: {}", e.toString());
            }
        }
        try {
            segmentWriter.flush();
        } finally {
            // A full one: the next start streams it back with no summary to read, and an earlier
            // release (which reads no delta) comes back as warm.
            closingCheckpointDurable = writer.checkpoint("closing", true);
            awaitingSettled.forEach(CountDownLatch::countDown); // the closing checkpoint ended what was under way
            awaitingSwept.forEach(CountDownLatch::countDown); // no more sweeping: waiting would be for nothing
        }
    }

    private void take(Pending pending) {
        if (pending.kind() == Kind.MARKER) {
            pending.reached().countDown();
        } else if (pending.kind() == Kind.CHECKPOINTS_SETTLED) {
            awaitingSettled.add(pending.reached());
        } else if (pending.kind() == Kind.DEAD_FILES_SWEPT) {
            awaitingSwept.add(pending.reached());
        } else if (pending.kind() == Kind.CHECKPOINT || pending.kind() == Kind.FULL_CHECKPOINT) {
            try {
                pending.durable()[0] = writer.checkpoint("asked for", pending.kind() == Kind.FULL_CHECKPOINT);
            } finally {
                pending.reached().countDown();
            }
        } else if (pending.kind() == Kind.FILES_DIED) {
            filesDiedQueued.set(false); // before the queue is drained: a death from now on queues another
            for (Integer id = diedFiles.poll(); id != null; id = diedFiles.poll()) {
                segmentWriter.filesDied(id);
            }
        } else if (pending.kind() == Kind.DAMAGED) {
            // The entry that pointed at the damaged record, or one put since (a cached chunk lost, never a wrong byte).
            writer.invalidate(pending.key());
        } else if (pending.kind() == Kind.INVALIDATION) {
            // Out of the index (and the chunks kept for reinsertion) first, out of the set second:
            // readers miss the key all the while.
            writer.invalidate(pending.key());
            awaitingRemoval.computeIfPresent(pending.key(), (key, left) -> left == 1 ? null : left - 1);
        } else if (pending.kind() == Kind.MOVE) {
            queuedBytes.addAndGet(-pending.chunk().remaining());
            // The writer checks the index still points at the record read, in the use of its segment read;
            // the invalidation's time is checked too, as for offers.
            if (!invalidatedSince(pending.key(), pending.readStartedNanos())) {
                ByteBuffer compressed = compressed(pending);
                if (writer.move(pending.key(), compressed != null ? compressed : pending.chunk(),
                        compressed != null ? ChunkForm.LZ4 : ChunkForm.RAW, pending.from(), pending.fromSequence())) {
                    moved.increment();
                    countStored(pending, compressed);
                }
            }
        } else {
            queuedBytes.addAndGet(-pending.chunk().remaining());
            if (invalidatedSince(pending.key(), pending.readStartedNanos())) {
                offeredBeforeInvalidation.increment();
            } else {
                ByteBuffer compressed = compressed(pending);
                if (writer.append(pending.key(), compressed != null ? compressed : pending.chunk(),
                        compressed != null ? ChunkForm.LZ4 : ChunkForm.RAW)) {
                    countStored(pending, compressed);
                }
            }
        }
    }

    /** The payload of a chunk to store compressed, when compressing it pays; else null (stored as it is). */
    private ByteBuffer compressed(Pending pending) {
        if (!pending.compress()) {
            return null;
        }
        try {
            return ChunkCompression.compress(pending.chunk());
        } catch (LinkageError e) {
            compressionUnavailable.warn(LOG, "flash cache: chunks cannot be compressed here (lz4-java: {}); "
                    + "they are stored uncompressed", e.toString());
            return null;
        }
    }

    /** Counts a chunk to be stored compressed once it is stored: compressed, or as it was when that did not pay. */
    private void countStored(Pending pending, ByteBuffer compressed) {
        if (compressed != null) {
            compressedChunks.increment();
            compressedChunkBytes.add(pending.chunk().remaining());
            compressedPayloadBytes.add(compressed.remaining());
        } else if (pending.compress()) {
            storedRawNotWorthCompressing.increment();
        }
    }

    /** Forgets invalidations older than any offer still expected, at most once a second. */
    private void pruneInvalidations() {
        long now = nanoClock.getAsLong();
        if (now - lastPruneNanos > TimeUnit.SECONDS.toNanos(1) && !invalidatedAt.isEmpty()) {
            lastPruneNanos = now;
            invalidatedAt.values().removeIf(at -> now - at > INVALIDATION_MEMORY_NANOS);
        }
    }

    /**
     * Before the writer opens a segment: the sequences it may give out, above every sequence any
     * earlier run or cache gave out on these devices, are reserved durably in their superblocks (a
     * format reserved the first range). So a record's sequence is never one an older record on the
     * same flash carries, whatever the clock does; without that a record left from before could
     * pass for a current one.
     */
    private void reserveSequences() throws IOException {
        // Above the superblocks' reservations and every sequence the checkpoints name.
        long first = start.formatted() ? start.sequenceFloor() : Math.max(start.sequenceFloor(), table.nextSequence());
        long limit = DeviceStart.reserveSequences(drivers, start, first);
        table.continueSequencesFrom(first);
        table.limitSequences(limit);
    }

    /**
     * Nanoseconds the flash reads of hits on {@code space} took so far, failed and timed-out ones
     * included (at least 1 ns each): over those reads, a read's mean time.
     */
    public long hitReadNanos(int space) {
        return load.readNanos(space);
    }

    /** Hits that found {@code space} with as many reads in flight as it may, and were misses without a read. */
    public long busyMisses(int space) {
        return load.refusals(space);
    }

    /** Every counter of the engine, read together (see {@link EngineStats}). */
    public EngineStats stats() {
        Checkpointer.Result last = writer.lastCheckpoint();
        long appended = segmentWriter.appended();
        int sealed = segmentWriter.sealed();
        return new EngineStats(index.entries(), queuedBytes(), alreadyCached(), queueFull(), notAdmitted(), dropped(),
                offeredBeforeInvalidation(), appended, segmentWriter.reinserted(), sealed,
                (long) sealed * settings.segmentBytes(), segmentWriter.reclaimed(),
                segmentWriter.failedWrites(), writerErrors(), reader.memoryReads(), reader.flashBytesRead(), reader.pairedReads(),
                reader.timeouts(), reader.busyMisses(), readErrors(), refusedRecords(), damagedRecords(), invalidations(), checkpoints(),
                failedCheckpoints(), writer.deltaCheckpoints(), writer.checkpointBytesWritten(),
                last == null ? 0 : last.sequence(),
                last == null ? recovered.checkpointMillis() : last.startedMillis(), appendedSince(appended),
                new EngineStats.DeadSpace(segmentWriter.entries().deadRecords(), segmentWriter.deadFilesPendingCount(),
                        segmentWriter.deadFilesChunksRemoved(), segmentWriter.mostlyDeadDoomed()),
                moves == null ? 0 : moves.taken(), moved.sum(), segmentWriter.doomedForMoves(),
                new EngineStats.Compression(compressedChunks(), compressedChunkBytes(), compressedPayloadBytes(),
                        storedRawNotWorthCompressing(), reader.decompressed(), reader.secondReads()));
    }

    /** What the last durable checkpoint wrote (its sequence, entries, bytes), or null before the first. */
    public Checkpointer.Result lastCheckpoint() {
        return writer.lastCheckpoint();
    }

    /** What start found and did. */
    /** The engine's address spaces: each a device, where its segments and checkpoint areas are. */
    public AddressSpaces spaces() {
        return addressSpaces;
    }

    public DeviceStart.Outcome start() {
        return start;
    }

    /** What recovery brought back. */
    public Recovery.Outcome recovered() {
        return recovered;
    }

    public long entries() {
        return index.entries();
    }

    /** Reads that met a record other than the one looked up (or longer than the reader's chunk): misses, never served. */
    public long refusedRecords() {
        return refused.sum();
    }

    /** Reads whose record failed a checksum: misses, never served. */
    public long damagedRecords() {
        return damaged.sum();
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
        return writer.dropped();
    }

    /** Unexpected failures of the writer on a chunk (logged, at most once a minute). */
    public long writerErrors() {
        return writerErrors.sum();
    }

    /** Chunks the writer stored compressed, hot chunk moves included (not reinsertion, which keeps each form). */
    public long compressedChunks() {
        return compressedChunks.sum();
    }

    /** The bytes of the chunks stored compressed, before compression. */
    public long compressedChunkBytes() {
        return compressedChunkBytes.sum();
    }

    /** The LZ4 payloads of the chunks stored compressed. */
    public long compressedPayloadBytes() {
        return compressedPayloadBytes.sum();
    }

    /** Chunks to be stored compressed that were stored as they were: compressing saved less than an eighth. */
    public long storedRawNotWorthCompressing() {
        return storedRawNotWorthCompressing.sum();
    }

    /** Offers of keys already in the index: not queued. */
    public long alreadyCached() {
        return alreadyCached.sum();
    }

    /** Offers dropped because their key was invalidated after their file read began. */
    public long offeredBeforeInvalidation() {
        return offeredBeforeInvalidation.sum();
    }

    public long invalidations() {
        return invalidations.sum();
    }

    /** Bytes offered and waiting for the writer. */
    public long queuedBytes() {
        return queuedBytes.get();
    }

    public SegmentReader reader() {
        return reader;
    }

    public SegmentTable table() {
        return table;
    }

    /** The index, for tests and benchmarks that fill it directly (only while the writer is idle). */
    ChunkIndex index() {
        return index;
    }

    /** Chunks appended since the last durable checkpoint started: what a crash now could lose, at most. */
    public long appendedSinceCheckpoint() {
        return appendedSince(segmentWriter.appended());
    }

    private long appendedSince(long appended) {
        return writer.appendedSince(appended);
    }

    public long checkpoints() {
        return writer.checkpoints();
    }

    public long failedCheckpoints() {
        return writer.failedCheckpoints();
    }

    /** The appender, for tests and benchmarks that look at its counters. */
    public SegmentWriter segmentWriter() {
        return segmentWriter;
    }

    /**
     * After {@link #close}: whether the writer stopped and its checkpoint at close was durable, so a
     * restart finds everything written; false before close.
     */
    public boolean closedWithCheckpoint() {
        return closing && !writerThread.isAlive() && closingCheckpointDurable;
    }

    private static boolean[] discardingSpaces(Settings settings, int spaces) {
        boolean[] discarding = new boolean[spaces];
        for (int space = 0; space < spaces; space++) {
            discarding[space] = settings.discards(space); // one space a device, in order
        }
        return discarding;
    }

    /** The thread discarding freed segments, or null when no device asks for discards. */
    public SegmentDiscards discards() {
        return discards;
    }

    /** Stops taking chunks, appends what is queued, seals the open segment and writes a last checkpoint. */
    @Override
    public void close() throws InterruptedException {
        closing = true;
        queue.add(Pending.marker(new CountDownLatch(1))); // wakes a writer waiting for work, so it sees the close now
        try {
            writerThread.join(TimeUnit.MINUTES.toMillis(1));
            if (writerThread.isAlive()) {
                LOG.warn("flash cache: the writer did not stop within a minute; closing without its last checkpoint");
            }
        } finally {
            if (discards != null) {
                discards.close(); // before the devices close, unless a discard hangs
            }
        }
        for (Pending pending; (pending = queue.poll()) != null; ) {
            if (pending.reached() != null) {
                pending.reached().countDown(); // nothing more will be written: waiters need not wait
            }
        }
    }
}

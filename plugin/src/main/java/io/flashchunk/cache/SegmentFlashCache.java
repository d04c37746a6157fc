package io.flashchunk.cache;

import io.flashchunk.buffer.AlignedBufferPool;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.engine.CacheEngine;
import io.flashchunk.cache.engine.EngineStats;
import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.ChunkKeys;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.cache.files.FileRegistry;
import io.flashchunk.cache.files.FileTableCodec;
import io.flashchunk.cache.files.NamedFiles;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.health.DeviceBreaker;
import io.flashchunk.cache.health.MissReads;
import io.flashchunk.cache.read.FlashReadGate;
import io.flashchunk.cache.read.FlashReadPolicy;
import io.flashchunk.cache.read.SegmentReader;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cache on the engine ({@link CacheEngine}): what the adapter sees of it. This class
 * owns what the engine does not know: the files behind the keys (registered, restored after a
 * restart only if provably unchanged on disk, invalidated), the optional DRAM tier in front, the
 * slow-device breakers around flash reads, and the counters as one snapshot. Where a miss becomes a
 * flash write: {@link #put} offers it to {@link CacheEngine#offer}, whose writer appends it to a
 * segment.
 *
 * <p>Every hit is a record whose key and segment use match and whose CRC32C holds (checked by the
 * engine's reader); nothing else is ever served.
 */
public final class SegmentFlashCache implements FlashCache {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentFlashCache.class);
    /** The slow-device breakers judge a device's reads over at least this long. */
    private static final long BREAKER_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long POOL_RETAINED_BYTES_PER_CLASS = 8L << 20;

    private final CacheConfig config;
    private final List<StorageDriver> drivers;
    private final FileRegistry files = new FileRegistry();
    private final CacheEngine engine;
    private final DramTier dram;
    private final AlignedBufferPool pool = new AlignedBufferPool(RecordFormat.MAX_CHUNK_BYTES, POOL_RETAINED_BYTES_PER_CLASS);
    private final CacheMetrics metrics;
    private final LongSupplier clock;
    private final MissReads missReads;
    private final List<DeviceBreaker> breakers;
    private final long recoveredEntries;
    private final WarningThrottle failures = new WarningThrottle(10, TimeUnit.SECONDS);
    private volatile boolean closed;

    /** Opens every configured device and starts the cache on them (recovering or formatting). */
    public static SegmentFlashCache open(CacheConfig config) throws IOException {
        config.validate();
        List<BlockDevice> devices = BlockDevices.openAll(config.devices());
        try {
            return new SegmentFlashCache(config, devices, System::nanoTime);
        } catch (IOException | RuntimeException e) {
            devices.forEach(BlockDevice::close);
            throw e;
        }
    }

    /**
     * Starts the cache on already opened devices, one address space each, in order.
     *
     * @param clock System.nanoTime or a test's: the time of flash reads (the breakers' and the hit
     *              histogram's) and of invalidations, which puts' {@code readStartedNanos} are compared with
     */
    public SegmentFlashCache(CacheConfig config, List<BlockDevice> devices, LongSupplier clock) throws IOException {
        this.config = config.validate();
        this.clock = clock;
        List<StorageDriver> driverList = new ArrayList<>();
        for (BlockDevice device : devices) {
            driverList.add(new StorageDriver(device, Math.min(config.maxWritesInFlight(), device.queueDepth()),
                    TimeUnit.MILLISECONDS.toNanos(config.deviceTimeoutMillis())));
        }
        this.drivers = List.copyOf(driverList);
        this.metrics = new CacheMetrics(drivers.size(), clock);
        long readTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(config.readTimeoutMillis());
        if (config.readInCallerThread()) {
            devices.stream().filter(device -> device.engine() == io.flashchunk.device.IoEngine.IO_URING).forEach(device ->
                    LOG.warn("flash device {}: read_in_caller_thread is set, so hits read it with a blocking pread; its "
                            + "io_uring rings go unused (leave read_in_caller_thread out to use them)", device.path()));
        }
        this.missReads = new MissReads(clock, BREAKER_PERIOD_NANOS);
        this.breakers = drivers.stream().map(driver -> new DeviceBreaker(driver.path(), clock, missReads,
                BREAKER_PERIOD_NANOS, TimeUnit.MILLISECONDS.toNanos(config.slowReadMillis()),
                TimeUnit.MILLISECONDS.toNanos(config.slowDeviceRetryMillis()), readTimeoutNanos))
                .collect(Collectors.toUnmodifiableList());
        FlashReadPolicy reads = new FlashReadPolicy(config.readInCallerThread(), readTimeoutNanos,
                new BreakerGate(breakers, config.readInCallerThread(), metrics), clock);
        this.engine = CacheEngine.open(drivers, engineSettings(config, drivers), new RegistryFiles(files),
                System::currentTimeMillis, clock, reads);
        this.recoveredEntries = engine.recovered().restoredEntries();
        Map<Integer, FileIdentity> named = engine.recovered().files();
        if (!named.isEmpty()) {
            LOG.info("flash cache: recovered {} chunks of {} files; {} files dropped (gone or changed: their chunks "
                    + "are never served and leave the index)", recoveredEntries, named.size(),
                    named.size() - files.liveFiles());
        }
        this.dram = config.dramTierBytes() > 0 ? new DramTier(config.dramTierBytes()) : null;
        LOG.info("flash chunk cache: {} device(s), capacity {} MiB, {} chunks recovered{}",
                devices.size(), capacityBytes() >> 20, recoveredEntries,
                dram == null ? "" : ", DRAM tier " + (config.dramTierBytes() >> 20) + " MiB");
    }

    private static CacheEngine.Settings engineSettings(CacheConfig config, List<StorageDriver> drivers) {
        // A crash loses what was written since the last checkpoint: write one each time about
        // checkpoint_change_percent of the flash has been rewritten.
        long flashBytes = drivers.stream().mapToLong(driver -> driver.capacityBlocks() * BlockDevice.BLOCK_SIZE).sum();
        long segments = Math.max(1, flashBytes / config.segmentBytes());
        int every = (int) Math.max(1, Math.min(Integer.MAX_VALUE,
                config.checkpointChangePercent() == 0 ? segments : (long) (segments * config.checkpointChangePercent() / 100)));
        return new CacheEngine.Settings(config.segmentBytes(), config.expectedChunkBytes(),
                config.reinsertPercent() / 100, config.admissionSketchCounters(), config.admissionDoorkeeperBits(),
                config.admissionSampleReads(), config.queueBytes(), every,
                config.checkpointIntervalMillis(),
                config.strict(),
                config.devices().stream().map(DeviceSpec::forceFormat).collect(Collectors.toUnmodifiableList()))
                .withDiscard(config.devices().stream().map(DeviceSpec::discard).collect(Collectors.toUnmodifiableList()))
                .withHotChunkMoves(config.hotChunkMoveBytesPerSecond());
    }

    @Override
    public CacheConfig config() {
        return config;
    }

    @Override
    public CachedFile registerFile(FileIdentity identity) {
        return files.register(identity, this::invalidateFile);
    }

    @Override
    public FileRegistry files() {
        return files;
    }

    /**
     * A hit from the DRAM tier, a segment buffer or flash (served from the buffer flash was read
     * into); with {@code withFollower}, a whole chunk's flash read also brings the file's next chunk
     * when its record lies right after (see {@link #claim}).
     */
    @Override
    public CachedChunk get(CachedFile file, long position, int maxLength, boolean withFollower) {
        long key = ChunkKeys.key(file.id(), position);
        if (key < 0 || closed || file.isInvalidated() || maxLength < 1 || maxLength > RecordFormat.MAX_CHUNK_BYTES) {
            metrics.misses.increment();
            return null;
        }
        try {
            if (dram != null) {
                CachedChunk chunk = dram.get(key, pool);
                if (chunk != null) {
                    metrics.dramHits.increment();
                    return chunk;
                }
            }
            // Taken before the read: an invalidation at or after it keeps the hit out of the DRAM tier.
            long started = clock.getAsLong();
            // A file stored compressed reads what its records take; any other reads the longest a chunk can.
            boolean compressed = file.storeCompressed();
            SegmentReader.Hit hit = engine.read(key, maxLength, withFollower ? nextKey(file, position, maxLength)
                    : SegmentReader.NO_NEXT, compressed ? file.expectedRecordBytes() : 0);
            if (hit != null) {
                if (hit.fromFlash() && compressed) {
                    file.recordRead(hit.recordBytes());
                }
                CachedChunk chunk = cachedChunk(hit);
                (hit.fromFlash() ? metrics.flashHits : metrics.memoryHits).increment();
                metrics.recordHit(clock.getAsLong() - started);
                if (dram != null) {
                    try {
                        keepInDram(key, hit.chunk(), started);
                    } catch (RuntimeException e) {
                        chunk.release();
                        throw e;
                    }
                }
                return chunk;
            }
        } catch (RuntimeException e) {
            metrics.getFailures.increment();
            failures.warn(LOG, "flash cache: a get failed, the file is read instead: {}", e.toString());
        }
        metrics.misses.increment();
        return null;
    }

    /** The key of the chunk after a whole one (a file's chunks are a power of two long; its short last one has no next). */
    private static long nextKey(CachedFile file, long position, int chunkLength) {
        long next = Integer.bitCount(chunkLength) == 1 ? ChunkKeys.key(file.id(), position + chunkLength) : -1;
        return next < 0 ? SegmentReader.NO_NEXT : next;
    }

    /** The hit for the adapter: it and its follower, if any, share the read's buffer. */
    private static CachedChunk cachedChunk(SegmentReader.Hit hit) {
        SegmentReader.Follower next = hit.next();
        CachedChunk.PooledBuffer pooled = new CachedChunk.PooledBuffer(hit.buffer(), hit.pool(), next == null ? 1 : 2);
        CachedChunk chunk = new CachedChunk(hit.chunk(), pooled);
        if (next != null) {
            chunk.attach(new FollowingChunk(next.key(), next, next.chunk(), pooled));
        }
        return chunk;
    }

    /**
     * Copies a hit into the DRAM tier unless the key was invalidated since the read began: the
     * invalidation records its time before it clears the tier, so either this check sees it or its
     * clearing comes after the copy (see {@link DramTier#putIfCurrent}). An invalidation timed before
     * the read began was seen by the read itself (the engine's {@link CacheEngine#invalidate} contract).
     */
    private void keepInDram(long key, ByteBuffer chunk, long readStartedNanos) {
        dram.putIfCurrent(key, chunk, () -> !engine.invalidatedSince(key, readStartedNanos));
    }

    /**
     * The follower of an earlier hit, if its file is still cached and the engine says its record is
     * still that chunk's (not invalidated since, the index still pointing at that use of the segment);
     * its bytes passed their checks when read. Else null, and the follower is released.
     */
    @Override
    public CachedChunk claim(CachedFile file, FollowingChunk follower) {
        SegmentReader.Follower next = follower.ticket instanceof SegmentReader.Follower
                ? (SegmentReader.Follower) follower.ticket : null;
        if (next == null || closed || file.isInvalidated() || ChunkKeys.fileId(next.key()) != file.id()
                || !engine.claim(next)) {
            follower.release();
            return null;
        }
        CachedChunk chunk = follower.handOver();
        if (chunk != null) {
            metrics.followerServed();
        }
        return chunk;
    }

    @Override
    public void put(CachedFile file, long position, ByteBuffer chunk, long readStartedNanos) {
        // What a miss costs: the breakers judge flash reads against it.
        missReads.record(System.nanoTime() - readStartedNanos);
        long key = ChunkKeys.key(file.id(), position);
        int length = chunk.remaining();
        if (key < 0 || length == 0 || length > RecordFormat.MAX_CHUNK_BYTES || closed || file.isInvalidated()) {
            metrics.uncacheable.increment();
            return;
        }
        metrics.puts.increment();
        try {
            engine.offer(key, chunk, readStartedNanos, file.storeCompressed());
        } catch (RuntimeException e) {
            metrics.putFailures.increment();
            failures.warn(LOG, "flash cache: a put failed, the chunk is not cached: {}", e.toString());
        }
    }

    @Override
    public void invalidatePosition(CachedFile file, long position) {
        long key = ChunkKeys.key(file.id(), position);
        if (key < 0) {
            throw new IllegalArgumentException("chunk position " + position + " of " + file.path()
                    + " is not a multiple of 4096");
        }
        engine.invalidate(key);
        // After the engine recorded the time (see keepInDram), so no copy of the old bytes stays behind.
        if (dram != null) {
            dram.invalidate(key);
        }
    }

    /**
     * Its chunks are never looked up again (its id is dead and never reused); they leave flash and
     * the index with their segments, and the next checkpoint's file table leaves the file out.
     */
    @Override
    public void invalidateFile(CachedFile file) {
        if (files.invalidate(file)) {
            engine.fileDied(file.id());
            if (dram != null) {
                dram.removeIf(key -> ChunkKeys.fileId(key) == file.id());
            }
        }
    }

    @Override
    public List<CacheStats.SpaceStats> spaceStats() {
        SegmentTable table = engine.table();
        long segmentBlocks = config.segmentBytes() / BlockDevice.BLOCK_SIZE;
        long[][] byState = segmentsByState(table);
        List<CacheStats.SpaceStats> spaces = new ArrayList<>();
        for (int s = 0; s < drivers.size(); s++) {
            DeviceBreaker breaker = breakers.get(s);
            spaces.add(new CacheStats.SpaceStats(s, drivers.get(s).path(), drivers.get(s).device().engine(),
                    table.segmentsIn(s) * segmentBlocks,
                    byState[s], segmentBlocks, drivers.get(s).writesInFlight(), breaker.bypassed(), breaker.trips(),
                    breaker.refusedReads(), metrics.hitReads(s), metrics.failedHitReads(s), engine.hitReadNanos(s), engine.busyMisses(s),
                    drivers.get(s).device().stats()));
        }
        return List.copyOf(spaces);
    }

    @Override
    public CacheStats stats() {
        List<CacheStats.SpaceStats> spaces = spaceStats();
        CacheMetrics m = metrics;
        EngineStats engineStats = engine.stats();
        // Each tier its own counter: a difference of two counters read apart could go down between two reads.
        return new CacheStats(m.memoryHits.sum(), m.dramHits.sum(), m.flashHits.sum(), m.misses.sum(), m.puts.sum(),
                m.uncacheable.sum(), m.followersServed.sum(), m.getFailures.sum(), m.putFailures.sum(), recoveredEntries,
                weightedBytes() / BlockDevice.BLOCK_SIZE, engineStats, spaces, m.flashHitLatency(),
                m.recentHitLatency());
    }

    /** Per space, how many segments are in each state. */
    private long[][] segmentsByState(SegmentTable table) {
        long[][] counts = new long[drivers.size()][SegmentState.values().length];
        for (int space = 0; space < counts.length; space++) {
            for (SegmentState state : SegmentState.values()) {
                counts[space][state.ordinal()] = table.count(space, state);
            }
        }
        return counts;
    }

    @Override
    public long capacityBytes() {
        long bytes = 0;
        SegmentTable table = engine.table();
        for (int s = 0; s < drivers.size(); s++) {
            bytes += (long) table.segmentsIn(s) * config.segmentBytes();
        }
        return bytes;
    }

    @Override
    public long entries() {
        return engine.entries();
    }

    /** Bytes of the segments in use: written, being written or waiting to be reclaimed. */
    @Override
    public long weightedBytes() {
        SegmentTable table = engine.table();
        long used = 0;
        for (int s = 0; s < drivers.size(); s++) {
            used += usedSegments(table, s);
        }
        return used * config.segmentBytes();
    }

    /**
     * Segments of the space that hold chunks: open, sealed, durable or doomed (served until reused;
     * not free, retired or being reclaimed).
     */
    private static long usedSegments(SegmentTable table, int space) {
        return table.count(space, SegmentState.OPEN) + table.count(space, SegmentState.SEALED)
                + table.count(space, SegmentState.DURABLE) + table.count(space, SegmentState.DOOMED);
    }

    @Override
    public String checkpointNow() throws IOException {
        try {
            // Asked for by an operator: a full one, what any release reads and a restart needs no summary for.
            if (!engine.checkpoint(config.deviceTimeoutMillis(), TimeUnit.MILLISECONDS, true)) {
                throw new IOException("no checkpoint was made durable within " + config.deviceTimeoutMillis()
                        + " ms (see the log for why)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for a checkpoint", e);
        }
        return "checkpoint written (" + engine.checkpoints() + " so far, " + engine.failedCheckpoints() + " failed)";
    }

    /** Stops taking chunks, writes what is queued and a last checkpoint, closes the devices. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            engine.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            drivers.forEach(StorageDriver::close);
        }
    }

    @Override
    public synchronized boolean closedWithCheckpoint() {
        return closed && engine.closedWithCheckpoint();
    }

    CacheEngine engine() {
        return engine;
    }

    /** The breakers around every flash read of a hit. */
    private static final class BreakerGate implements FlashReadGate {
        private final List<DeviceBreaker> breakers;
        private final boolean inCallerThread;
        private final CacheMetrics metrics;

        private BreakerGate(List<DeviceBreaker> breakers, boolean inCallerThread, CacheMetrics metrics) {
            this.breakers = breakers;
            this.inCallerThread = inCallerThread;
            this.metrics = metrics;
        }

        public List<DeviceBreaker> breakers() {
            return breakers;
        }

        public boolean inCallerThread() {
            return inCallerThread;
        }

        @Override
        public boolean begin(int space) {
            DeviceBreaker breaker = breakers.get(space);
            return inCallerThread ? breaker.callerReadStarted() : breaker.allowRead();
        }

        @Override
        public void gaveUp(int space, long nanos) {
            judge(space, nanos, true); // judged as a failed read, counted as none
        }

        @Override
        public boolean inUse(int space) {
            return !breakers.get(space).bypassed();
        }

        @Override
        public void end(int space, long nanos, boolean failed) {
            metrics.recordHitRead(space, failed);
            judge(space, nanos, failed);
        }

        private void judge(int space, long nanos, boolean failed) {
            if (inCallerThread) {
                breakers.get(space).callerReadEnded(failed);
            } else {
                breakers.get(space).recordRead(nanos, failed);
            }
        }

        @Override
        public String toString() {
            return "BreakerGate[breakers=" + breakers + ", inCallerThread=" + inCallerThread + "]";
        }
    }

    /** The registry's live files, as a checkpoint names them. */
    private static final class RegistryFiles implements NamedFiles {
        private final FileRegistry files;

        private RegistryFiles(FileRegistry files) {
            this.files = files;
        }

        public FileRegistry files() {
            return files;
        }

        @Override
        public FileTableCodec.Encoded table() {
            return FileTableCodec.encode(files.live());
        }

        @Override
        public int nextFileId() {
            return files.nextId();
        }

        @Override
        public boolean isLive(int fileId) {
            return files.isLive(fileId);
        }

        @Override
        public boolean storesUncompressed(int fileId) {
            return files.storesUncompressed(fileId);
        }

        /**
         * Registers the files the checkpoint named, each only if provably the file it was: a file
         * changed or gone keeps its chunks unreachable (its id is never handed out again), and the
         * writer takes them out of the index as it reads the recovered segments' summaries.
         */
        @Override
        public void recovered(Map<Integer, FileIdentity> named, int nextFileId) {
            files.reserveIdsBelow(nextFileId);
            Map<FileIdentity, Boolean> onDisk = new HashMap<>();
            for (Map.Entry<Integer, FileIdentity> file : named.entrySet()) {
                if (onDisk.computeIfAbsent(file.getValue(), FileIdentity::unchangedOnDisk)) {
                    files.restore(file.getKey(), file.getValue());
                }
            }
        }

        @Override
        public String toString() {
            return "RegistryFiles[files=" + files + "]";
        }
    }
}

package io.flashchunk.cache;

import io.flashchunk.buffer.AlignedBufferPool;
import io.flashchunk.cache.checkpoint.CheckpointImage;
import io.flashchunk.cache.checkpoint.CheckpointPolicy;
import io.flashchunk.cache.checkpoint.Checkpointer;
import io.flashchunk.cache.checkpoint.Recovery;
import io.flashchunk.cache.checkpoint.SpaceLayout;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.health.DeviceBreaker;
import io.flashchunk.cache.health.MissReads;
import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.cache.index.ChunkEntry;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.index.ChunkKeys;
import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.cache.index.FileIdentity;
import io.flashchunk.cache.index.FileRegistry;
import io.flashchunk.cache.index.RecoveredEntries;
import io.flashchunk.cache.queue.WriteQueue;
import io.flashchunk.cache.space.AddressSpace;
import io.flashchunk.cache.space.SpaceManager;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A persistent read cache of file chunks on flash: the index in the heap, the bytes on flash.
 * Nothing here knows Cassandra; its adapter maps Cassandra's files and chunks onto
 * {@link #registerFile}, {@link #get}, {@link #put} and the invalidations.
 *
 * <p>Never throws on the data path and never serves a wrong byte: every flash read is checked
 * against the entry's version (the location it started from) and its CRC32C; anything unexpected
 * is a miss plus a counter, and the caller reads its file as if there were no cache.
 */
public final class FlashChunkCache implements FlashCache {
    private static final Logger LOG = LoggerFactory.getLogger(FlashChunkCache.class);
    // Free space merges into runs of two of the largest chunks: a chunk allocated from one leaves the
    // other half on top of the free list, so a partition's two chunks admitted together lie side by
    // side and one read fetches both (see NeighbourPlacement and readFlash).
    static final int MAX_ORDER = ChunkLocation.order(ChunkLocation.MAX_LENGTH) + 1;
    private static final long POOL_RETAINED_BYTES_PER_CLASS = 8L << 20;
    private static final long SWEEP_DELAY_MILLIS = 100;
    private static final double MINIMUM_REBALANCE_LOAD = 10;
    private static final RecoveredEntries EMPTY = new RecoveredEntries(0);
    /** The slow-device breakers judge a device's reads over at least this long. */
    private static final long BREAKER_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final CacheConfig config;
    private final List<StorageDriver> drivers;
    private final SpaceManager spaces;
    private final FileRegistry files = new FileRegistry();
    private final ChunkIndex index;
    private final long indexBlocks;
    // Recovered entries not yet moved into the index (null once all have moved), and their mover.
    private volatile RecoveredEntries recovered;
    private final RecoveredPromoter promoter;
    // Up to two chunks: a hit and the file's next chunk, read with one I/O.
    private final AlignedBufferPool pool = new AlignedBufferPool(2 * ChunkLocation.MAX_LENGTH, POOL_RETAINED_BYTES_PER_CLASS);
    private final CacheMetrics metrics = new CacheMetrics();
    private final WriteQueue queue;
    private final DramTier dram;
    private final Migrator migrator;
    private final ScheduledExecutorService maintenance;
    private final AtomicBoolean sweepScheduled = new AtomicBoolean();
    private final long readTimeoutNanos;
    private final LongSupplier clock;
    private final MissReads missReads;
    // One slow-device breaker per address space, by space index.
    private final List<DeviceBreaker> breakers;
    private final Checkpointer checkpointer;
    private final CheckpointPolicy checkpointPolicy;
    private final long recoveredEntries;
    private final WarningThrottle checkpointFailures = new WarningThrottle(60, TimeUnit.SECONDS);
    private final WarningThrottle getFailures = new WarningThrottle(10, TimeUnit.SECONDS);
    private final WarningThrottle corruptions = new WarningThrottle(10, TimeUnit.SECONDS);
    private volatile boolean closed;
    private long lastTickNanos = System.nanoTime();

    /** Opens every configured device and starts the cache on them (recovering or formatting). */
    public static FlashChunkCache open(CacheConfig config) throws IOException {
        config.validate();
        List<BlockDevice> devices = BlockDevices.openAll(config.devices());
        try {
            return new FlashChunkCache(config, devices);
        } catch (IOException | RuntimeException e) {
            devices.forEach(BlockDevice::close);
            throw e;
        }
    }

    /**
     * Starts the cache on already opened devices, one address space each, in order: recovers the
     * newest valid checkpoint, or formats blank (or, unless strict, foreign) devices.
     */
    public FlashChunkCache(CacheConfig config, List<BlockDevice> devices) throws IOException {
        this(config, devices, true);
    }

    /** @param moveRecovered false: recovered entries move into the index only when read (tests) */
    FlashChunkCache(CacheConfig config, List<BlockDevice> devices, boolean moveRecovered) throws IOException {
        this(config, devices, moveRecovered, System::nanoTime);
    }

    /** @param clock System.nanoTime or a test's: the time of flash reads (the breakers' and the hit histogram's) */
    FlashChunkCache(CacheConfig config, List<BlockDevice> devices, boolean moveRecovered, LongSupplier clock)
            throws IOException {
        this.config = config.validate();
        this.checkpointPolicy = new CheckpointPolicy(TimeUnit.MILLISECONDS.toNanos(config.checkpointIntervalMillis()),
                TimeUnit.MILLISECONDS.toNanos(config.minCheckpointIntervalMillis()), config.checkpointChangePercent() / 100,
                System::nanoTime, changes());
        this.readTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(config.readTimeoutMillis());
        this.maintenance = Executors.newScheduledThreadPool(2, task -> {
            Thread thread = new Thread(task, "flashchunk-maintenance");
            thread.setDaemon(true);
            return thread;
        });
        List<StorageDriver> driverList = new ArrayList<>();
        for (BlockDevice device : devices) {
            driverList.add(new StorageDriver(device, Math.min(config.maxWritesInFlight(), device.queueDepth()),
                    TimeUnit.MILLISECONDS.toNanos(config.deviceTimeoutMillis())));
        }
        this.drivers = List.copyOf(driverList);
        this.clock = clock;
        this.missReads = new MissReads(clock, BREAKER_PERIOD_NANOS);
        this.breakers = drivers.stream().map(driver -> new DeviceBreaker(driver.path(), clock, missReads,
                BREAKER_PERIOD_NANOS, TimeUnit.MILLISECONDS.toNanos(config.slowReadMillis()),
                TimeUnit.MILLISECONDS.toNanos(config.slowDeviceRetryMillis()), readTimeoutNanos)).toList();
        Recovery.Outcome recovered = Recovery.open(drivers, config.strict(),
                config.devices().stream().map(DeviceSpec::forceFormat).toList());
        List<AddressSpace> spaceList = new ArrayList<>();
        long dataBlocks = 0;
        for (int i = 0; i < drivers.size(); i++) {
            SpaceLayout layout = recovered.layouts().get(i);
            spaceList.add(new AddressSpace(i, drivers.get(i), layout.dataStart(), layout.dataBlocks(), MAX_ORDER, true));
            dataBlocks += layout.dataBlocks();
        }
        this.spaces = new SpaceManager(spaceList, config.spaceReservePercent() / 200, this::checkpointSoon);
        long indexBlocks = Math.max(1, (long) (dataBlocks * (1 - config.spaceReservePercent() / 100)));
        this.indexBlocks = indexBlocks;
        RecoveredEntries table = load(recovered.images(), indexBlocks);
        this.recoveredEntries = table.entries();
        this.index = new ChunkIndex(indexBlocks, (int) Math.min(Integer.MAX_VALUE / 2, table.entries()),
                ForkJoinPool.commonPool(), files, this::onEvicted);
        this.checkpointer = new Checkpointer(index, () -> this.recovered, files, spaces, recovered.layouts(),
                recovered.instance(), recovered.areaSequences());
        if (table.entries() > 0) {
            this.recovered = table;
            this.promoter = new RecoveredPromoter(table, index, files, spaces, indexBlocks,
                    checkpointer::excludingCheckpoints, () -> this.recovered = null);
        } else {
            this.promoter = null;
        }
        this.queue = new WriteQueue(index, files, spaces, pool, metrics, config.queueBytes(),
                config.allocationWaitMillis());
        this.dram = config.dramTierBytes() > 0 ? new DramTier(config.dramTierBytes()) : null;
        this.migrator = new Migrator(index, spaces, pool, metrics);
        maintenance.scheduleWithFixedDelay(this::runMaintenanceQuietly, config.maintenanceIntervalMillis(),
                config.maintenanceIntervalMillis(), TimeUnit.MILLISECONDS);
        // The policy is asked often enough to honour its shortest interval; it decides, not the clock.
        long policyTick = Math.max(10, Math.min(1000, config.minCheckpointIntervalMillis() / 4));
        maintenance.scheduleWithFixedDelay(this::checkpointTick, policyTick, policyTick, TimeUnit.MILLISECONDS);
        if (promoter != null && moveRecovered) {
            promoter.start();
        }
        LOG.info("flash chunk cache: {} device(s), {} data blocks, index capacity {} blocks ({} MiB), queue {} MiB{}, "
                        + "{} entries recovered", devices.size(), dataBlocks, indexBlocks,
                indexBlocks * BlockDevice.BLOCK_SIZE >> 20, config.queueBytes() >> 20,
                dram == null ? "" : ", DRAM tier " + (config.dramTierBytes() >> 20) + " MiB", recoveredEntries);
    }

    /**
     * Rebuilds files and allocations from the recovered checkpoints and returns their entries, in a
     * table the cache serves from at once (entries move into the index afterwards, see
     * {@link RecoveredPromoter}). An entry comes back only if its file is provably still the file it was
     * ({@link FileIdentity#unchangedOnDisk}) and its run is free; everything else stays free.
     */
    private RecoveredEntries load(List<CheckpointImage> images, long capacityBlocks) {
        long total = images.stream().mapToLong(image -> image == null ? 0 : image.entryCount()).sum();
        RecoveredEntries table = new RecoveredEntries((int) Math.min(RecoveredEntries.MAX_ENTRIES, total));
        long dropped = 0;
        // By file id, for the files that come back: entries loaded. Ids are sparse and may be as large
        // as a checkpoint says, so nothing is sized by them.
        Map<Integer, int[]> restored = new HashMap<>();
        Map<FileIdentity, Boolean> onDisk = new HashMap<>();
        for (int s = 0; s < images.size(); s++) {
            CheckpointImage image = images.get(s);
            if (image == null) {
                continue;
            }
            files.reserveIdsBelow(image.header().nextFileId());
            // Per image: spaces may hold checkpoints of different moments (one torn), and an older one
            // may record a file as it was while still being written; only entries recorded with the
            // identity the file has now come back.
            Map<Integer, int[]> valid = new HashMap<>();
            image.files().forEach((id, identity) -> {
                if (onDisk.computeIfAbsent(identity, FileIdentity::unchangedOnDisk) && restoredAs(id, identity)) {
                    valid.put(id, restored.computeIfAbsent(id, ignored -> new int[1]));
                }
            });
            AddressSpace space = spaces.space(s);
            space.claimRecovered(image.usedBlocks());
            dropped += loadEntries(image, space, valid, table, capacityBlocks);
            space.finishClaims();
        }
        restored.forEach((id, loaded) -> files.addEntries(id, loaded[0]));
        if (table.entries() + dropped > 0) {
            LOG.info("flash cache: recovered {} chunks; {} dropped (their files are gone or changed)", table.entries(),
                    dropped);
        }
        return table;
    }

    /** Whether file {@code id} is now registered with {@code identity}, restoring it if it is not registered. */
    private boolean restoredAs(int id, FileIdentity identity) {
        CachedFile known = files.byId(id);
        return known == null ? files.restore(id, identity) : known.identity().equals(identity) && !known.isInvalidated();
    }

    /**
     * Adds an image's entries to the table (their runs are claimed already); gives back the runs of
     * entries whose file is gone or changed, of a key's second entry (a checkpoint may list a key
     * twice; the first wins), and of entries past the index's capacity: spaces may hold checkpoints of
     * different moments (one torn), whose entries together can outgrow it, and an entry recovered
     * beyond it would only be evicted by the first read that moves it into the index (that read then
     * missing). Counts loaded entries per restored file; returns the entries dropped.
     */
    private static long loadEntries(CheckpointImage image, AddressSpace space, Map<Integer, int[]> restored,
                                    RecoveredEntries table, long capacityBlocks) {
        long dropped = 0;
        for (int i = 0; i < image.entryCount(); i++) {
            int[] loaded = restored.get(image.fileId(i));
            long location = image.location(i);
            boolean fits = table.blocks() + (1L << ChunkLocation.order(ChunkLocation.length(location))) <= capacityBlocks;
            if (loaded != null && fits && !table.isFull() && table.add(image.key(i), location, image.crc(i))) {
                loaded[0]++;
            } else {
                space.release(ChunkLocation.lba(location), ChunkLocation.order(ChunkLocation.length(location)));
                dropped++;
            }
        }
        return dropped;
    }

    @Override
    public String checkpointNow() throws IOException {
        return checkpoint().toString();
    }

    /** Writes a checkpoint now; see {@link Checkpointer}. */
    public Checkpointer.Result checkpoint() throws IOException {
        CheckpointPolicy.Attempt attempt = checkpointPolicy.start(changes());
        boolean durable = false;
        try {
            Checkpointer.Result result = checkpointer.checkpoint();
            durable = true;
            metrics.checkpoints.increment();
            return result;
        } finally {
            checkpointPolicy.finished(attempt, durable);
        }
    }

    /**
     * Changes to what a checkpoint holds, as a running total: chunks written to flash (a crash before
     * the next checkpoint loses them), moved, evicted and invalidated (their runs wait for one).
     */
    private long changes() {
        return metrics.flashWrites.sum() + metrics.migrations.sum() + metrics.evictions.sum()
                + metrics.invalidations.sum();
    }

    /** Evicted runs waiting for a checkpoint fill half the reserve: ask for one early. */
    private void checkpointSoon() {
        checkpointPolicy.requestEarly();
    }

    /** Writes a checkpoint if {@link CheckpointPolicy} says one is due; true if it tried. */
    boolean checkpointIfDue() {
        if (closed || !checkpointPolicy.due(changes(), entries())) {
            return false;
        }
        checkpointQuietly();
        return true;
    }

    /**
     * The scheduled check. It is the only task that writes checkpoints, and a scheduled task that
     * throws is never run again: whatever happens (out of direct memory, say) is logged, and the
     * next tick tries again.
     */
    private void checkpointTick() {
        try {
            checkpointIfDue();
        } catch (Throwable t) {
            metrics.checkpointFailures.increment();
            checkpointFailures.warn(LOG, "flash cache: checkpoint failed (the previous one stays valid): {}",
                    t.toString());
        }
    }

    private void checkpointQuietly() {
        try {
            Checkpointer.Result result = checkpoint();
            LOG.debug("flash cache: checkpoint {}: {} entries, {} bytes in {} ms", result.sequence(), result.entries(),
                    result.bytes(), result.millis());
        } catch (IOException | RuntimeException e) {
            metrics.checkpointFailures.increment();
            checkpointFailures.warn(LOG, "flash cache: checkpoint failed (the previous one stays valid): {}",
                    e.toString());
        }
    }

    public CacheConfig config() {
        return config;
    }

    /** The file at {@code path} as it is now, under an id for its chunks; see {@link #registerFile(FileIdentity)}. */
    public CachedFile registerFile(Path path) throws IOException {
        return registerFile(FileIdentity.of(path));
    }

    /**
     * The registration for the file with this identity. A registration of the same path keeps its
     * chunks only if it is provably the same file, grown perhaps (written, then read early); any
     * other (a file deleted and written again, even at the same inode) is invalidated first, so its
     * chunks are never served for the new file.
     */
    public CachedFile registerFile(FileIdentity identity) {
        return files.register(identity, this::invalidateFile);
    }

    /**
     * The chunk of {@code file} starting at {@code position}, or null on a miss. The caller must
     * release a returned chunk.
     */
    public CachedChunk get(CachedFile file, long position) {
        return get(file, position, false);
    }

    /**
     * As {@link #get(CachedFile, long)}; with {@code withFollower}, a flash hit whose file's next chunk
     * lies right beside it on flash reads both with one I/O, and the next one comes with the hit
     * ({@link CachedChunk#takeFollower}), to be {@link #claim claimed} when its reader asks for it.
     */
    public CachedChunk get(CachedFile file, long position, boolean withFollower) {
        return get(file, position, ChunkLocation.MAX_LENGTH, withFollower);
    }

    /** As {@link #get(CachedFile, long, boolean)}; the length is the entry's, so {@code maxLength} is not needed. */
    @Override
    public CachedChunk get(CachedFile file, long position, int maxLength, boolean withFollower) {
        long key = ChunkKeys.key(file.id(), position);
        if (key < 0 || closed || file.isInvalidated()) {
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
            // Read once: the mover drops the table when it is done, and a move it made just before
            // may still be pending in the index.
            RecoveredEntries table = recovered;
            ChunkEntry entry = index.get(key);
            if (entry == null && table != null) {
                entry = promoter.promoteKey(key);
                if (entry == null) {
                    // The mover inserts into the index before it takes from the table: a whole move
                    // may have fallen between this thread's two looks.
                    entry = index.get(key);
                }
            }
            CachedChunk chunk = entry == null ? null : read(entry, withFollower);
            if (chunk == null && entry != null && table != null) {
                chunk = readAfterMove(entry);
            }
            if (chunk != null) {
                return chunk;
            }
        } catch (RuntimeException e) {
            metrics.readErrors.increment();
            getFailures.warn(LOG, "flash cache: a get failed, the file is read instead: {}", e.toString());
        }
        metrics.misses.increment();
        return null;
    }

    /**
     * A recovered entry being moved into the index is pending for the few instructions between its
     * insert and its location being set: wait that out rather than miss a chunk that is on flash.
     */
    private CachedChunk readAfterMove(ChunkEntry entry) {
        return RecoveredPromoter.awaitSettled(entry) && ChunkLocation.isOnFlash(entry.location()) ? read(entry, false) : null;
    }

    private CachedChunk read(ChunkEntry entry, boolean withFollower) {
        // Two looks: a pending chunk may reach flash (and leave memory) between them.
        for (int look = 0; look < 2; look++) {
            long location = entry.location();
            if (ChunkLocation.isDead(location)) {
                return null;
            }
            if (ChunkLocation.isOnFlash(location)) {
                ChunkEntry next = withFollower ? nextOnFlash(entry, location) : null;
                // The follower's location is read once: the read and its later claim use this value.
                long nextLocation = next == null ? ChunkLocation.DEAD : next.location();
                return readFlash(entry, location, beside(location, nextLocation) ? next : null, nextLocation);
            }
            ByteBuffer target = pool.acquire(ChunkLocation.length(location));
            int length = queue.copyPending(entry, target);
            if (length > 0) {
                metrics.memoryHits.increment();
                return new CachedChunk(target.limit(length), pool);
            }
            pool.release(target);
        }
        return null;
    }

    /** The file's next chunk, if a whole chunk (a file's short last chunk has no next one) is followed by one. */
    private ChunkEntry nextOnFlash(ChunkEntry entry, long location) {
        int length = ChunkLocation.length(location);
        long nextKey = ChunkKeys.key(entry.fileId(), entry.position() + length);
        return Integer.bitCount(length) != 1 || nextKey < 0 ? null : index.peek(nextKey);
    }

    /** Whether the two runs are on flash in one space, right beside each other (either way round). */
    private static boolean beside(long location, long nextLocation) {
        if (!ChunkLocation.isOnFlash(location) || !ChunkLocation.isOnFlash(nextLocation)
                || ChunkLocation.space(nextLocation) != ChunkLocation.space(location)) {
            return false;
        }
        long lba = ChunkLocation.lba(location);
        long nextLba = ChunkLocation.lba(nextLocation);
        return nextLba == lba + runBlocks(location) || nextLba + runBlocks(nextLocation) == lba;
    }

    private static int runBlocks(long location) {
        return 1 << ChunkLocation.order(ChunkLocation.length(location));
    }

    /**
     * Reads a chunk from flash and checks it; with {@code next}, whose run at {@code nextLocation} lies
     * beside it, reads both with one I/O and attaches the next one unverified (see {@link FollowingChunk}).
     */
    private CachedChunk readFlash(ChunkEntry entry, long location, ChunkEntry next, long nextLocation) {
        int length = ChunkLocation.length(location);
        AddressSpace space = spaces.space(ChunkLocation.space(location));
        long readLba = ChunkLocation.lba(location);
        int offset = 0;
        int nextOffset = 0;
        int bytes = runBlocks(location) * BlockDevice.BLOCK_SIZE;
        if (next != null) {
            int nextBytes = runBlocks(nextLocation) * BlockDevice.BLOCK_SIZE;
            if (ChunkLocation.lba(nextLocation) < readLba) {
                readLba = ChunkLocation.lba(nextLocation);
                offset = nextBytes;
            } else {
                nextOffset = bytes;
            }
            bytes += nextBytes;
        }
        DeviceBreaker breaker = breakers.get(space.index());
        boolean inCaller = config.readInCallerThread();
        if (inCaller ? !breaker.callerReadStarted() : !breaker.allowRead()) {
            return null; // the device is out of use: a miss
        }
        ByteBuffer buffer = pool.acquire(bytes);
        long start = clock.getAsLong();
        boolean read = inCaller ? readInCallerThread(space, readLba, buffer) : readQueued(space, readLba, buffer);
        if (inCaller) {
            breaker.callerReadEnded(!read);
        } else {
            breaker.recordRead(clock.getAsLong() - start, !read);
        }
        if (!read) {
            return null;
        }
        space.reads().mark(1);
        metrics.flashBytesRead.add(buffer.limit());
        // The version check: the entry must still be where the read started.
        if (entry.location() != location) {
            metrics.staleReads.increment();
            pool.release(buffer);
            return null;
        }
        ByteBuffer chunk = next == null ? buffer.limit(length) : buffer.slice(offset, length);
        if (crc32c(chunk) != entry.crc()) {
            pool.release(buffer);
            dropCorrupt(entry);
            return null;
        }
        metrics.flashHits.increment();
        metrics.recordFlashHit(clock.getAsLong() - start);
        CachedChunk hit;
        if (next == null) {
            hit = new CachedChunk(chunk, pool);
        } else {
            CachedChunk.PooledBuffer shared = new CachedChunk.PooledBuffer(buffer, pool, 2);
            hit = new CachedChunk(chunk, shared);
            hit.attach(new FollowingChunk(next.key(), new ReadAlong(next, nextLocation),
                    buffer.slice(nextOffset, ChunkLocation.length(nextLocation)), shared));
            metrics.pairedReads.increment();
        }
        if (dram != null) {
            keepInDram(entry, location, chunk);
            if (config.readAhead()) {
                readAhead(entry, length);
            }
        }
        return hit;
    }

    /**
     * The follower of an earlier hit, now that its reader asks for it: the chunk, if the file is still
     * cached, its entry still points where it was read from, and the bytes pass the checksum; else null
     * (and the follower is released).
     */
    public CachedChunk claim(CachedFile file, FollowingChunk follower) {
        if (!(follower.ticket instanceof ReadAlong along)) {
            follower.release();
            throw new IllegalArgumentException("a follower read by another engine");
        }
        ChunkEntry entry = along.entry();
        if (closed || file.isInvalidated() || ChunkKeys.fileId(entry.key()) != file.id()
                || index.get(entry.key()) != entry || entry.location() != along.location()) {
            follower.release();
            return null;
        }
        if (crc32c(follower.view) != entry.crc()) {
            follower.release();
            dropCorrupt(entry);
            return null;
        }
        CachedChunk chunk = follower.handOver();
        if (chunk != null) {
            metrics.followerServed();
        }
        return chunk;
    }

    /** A follower's entry, and its location when read (the claim checks the entry still has it). */
    private record ReadAlong(ChunkEntry entry, long location) {
    }

    /** Bytes on flash failed their checksum: the entry goes, and its run waits like an eviction's. */
    private void dropCorrupt(ChunkEntry entry) {
        metrics.checksumErrors.increment();
        corruptions.warn(LOG, "flash cache: checksum mismatch, entry dropped: {}", entry);
        if (index.remove(entry)) {
            releaseAfterCheckpoint(entry);
        }
    }

    /** A blocking read in this thread; false (the buffer released) when it failed. */
    private boolean readInCallerThread(AddressSpace space, long lba, ByteBuffer buffer) {
        try {
            space.driver().readNow(lba, buffer);
            return true;
        } catch (IOException | RuntimeException e) {
            metrics.readErrors.increment();
            pool.release(buffer);
            return false;
        }
    }

    /**
     * A read through the device's queue, waited for up to the read timeout; false when it failed or
     * timed out (the buffer released, or left to the read still running).
     */
    private boolean readQueued(AddressSpace space, long lba, ByteBuffer buffer) {
        CompletableFuture<Void> read;
        try {
            read = space.driver().read(lba, buffer);
        } catch (RuntimeException e) {
            pool.release(buffer);
            metrics.readErrors.increment();
            return false;
        }
        try {
            read.get(readTimeoutNanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            metrics.readTimeouts.increment();
            read.whenComplete((ignored, failure) -> pool.release(buffer));
        } catch (ExecutionException e) {
            metrics.readErrors.increment();
            pool.release(buffer);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            read.whenComplete((ignored, failure) -> pool.release(buffer));
        }
        return false;
    }

    /** Fetches the next chunk of the file into the DRAM tier in the background (the paper's overflow read). */
    private void readAhead(ChunkEntry entry, int length) {
        long nextKey = ChunkKeys.key(entry.fileId(), entry.position() + length);
        if (nextKey < 0 || dram.contains(nextKey)) {
            return;
        }
        ChunkEntry next = index.peek(nextKey);
        long location = next == null ? ChunkLocation.DEAD : next.location();
        if (!ChunkLocation.isOnFlash(location) || breakers.get(ChunkLocation.space(location)).bypassed()) {
            return;
        }
        ByteBuffer buffer = pool.acquire(ChunkLocation.length(location));
        spaces.space(ChunkLocation.space(location)).driver().read(ChunkLocation.lba(location), buffer)
                .whenComplete((ignored, failure) -> {
                    buffer.limit(ChunkLocation.length(location));
                    if (failure == null && next.location() == location && crc32c(buffer) == next.crc()) {
                        keepInDram(next, location, buffer);
                        metrics.readAheads.increment();
                    }
                    pool.release(buffer);
                });
    }

    /**
     * Copies a verified chunk into the DRAM tier unless the entry moved or died meanwhile: an
     * invalidation marks the entry dead before it clears the tier, so either this check sees it dead
     * or the invalidation's clearing comes after the copy (see {@link DramTier#putIfCurrent}).
     */
    private void keepInDram(ChunkEntry entry, long location, ByteBuffer chunk) {
        dram.putIfCurrent(entry.key(), chunk, () -> entry.location() == location);
    }

    static int crc32c(ByteBuffer buffer) {
        CRC32C crc = new CRC32C();
        crc.update(buffer.duplicate());
        return (int) crc.getValue();
    }

    /**
     * Offers a chunk read from the file on a miss (its bytes from position to limit). Returns at
     * once; the chunk reaches flash in the background, or is dropped when the queue is full.
     */
    public void put(CachedFile file, long position, ByteBuffer chunk) {
        offer(file, position, chunk, System.nanoTime());
    }

    /**
     * As {@link #put(CachedFile, long, ByteBuffer)}, for bytes whose read from the file started at
     * {@code readStartedNanos} (System.nanoTime): if the position is invalidated after that, the bytes
     * may be old and are not admitted. Callers that can race with {@link #invalidatePosition} pass the
     * time taken before reading the file.
     */
    public void put(CachedFile file, long position, ByteBuffer chunk, long readStartedNanos) {
        // What a miss costs: the breakers judge flash reads against it.
        missReads.record(System.nanoTime() - readStartedNanos);
        offer(file, position, chunk, readStartedNanos);
    }

    private void offer(CachedFile file, long position, ByteBuffer chunk, long readStartedNanos) {
        long key = ChunkKeys.key(file.id(), position);
        int length = chunk.remaining();
        if (key < 0 || length == 0 || length > ChunkLocation.MAX_LENGTH || closed || file.isInvalidated()) {
            metrics.uncacheable.increment();
            return;
        }
        metrics.puts.increment();
        if (index.peek(key) != null || isRecovered(key)) {
            metrics.putsAlreadyCached.increment();
            return;
        }
        try {
            queue.offer(key, chunk, readStartedNanos);
        } catch (RuntimeException e) {
            metrics.writeErrors.increment();
            getFailures.warn(LOG, "flash cache: a put failed, the chunk is not cached: {}", e.toString());
        }
    }

    private boolean isRecovered(long key) {
        RecoveredEntries table = recovered;
        return table != null && table.find(key) >= 0;
    }

    /** The chunk at {@code position} (its start) changed: forget it at once. */
    public void invalidatePosition(CachedFile file, long position) {
        long key = ChunkKeys.key(file.id(), position);
        if (key < 0) {
            throw new IllegalArgumentException("chunk position " + position + " of " + file.path()
                    + " is not a multiple of 4096");
        }
        queue.invalidate(key);
        // The table first, the index second: see RecoveredPromoter.
        invalidateRecovered(key);
        ChunkEntry removed = index.remove(key);
        if (removed != null) {
            // The file is still there: its last checkpoint may name this run, so it waits like an eviction's.
            metrics.invalidations.increment();
            releaseAfterCheckpoint(removed);
        }
        // After the entry is dead (see keepInDram), so no copy of the old bytes stays behind.
        if (dram != null) {
            dram.invalidate(key);
        }
    }

    /** Takes a recovered entry out of the table; its run waits for a checkpoint like an eviction's. */
    private void invalidateRecovered(long key) {
        RecoveredEntries table = recovered;
        int entry = table == null ? -1 : table.find(key);
        if (entry < 0) {
            return;
        }
        long location = table.location(entry);
        if (table.take(entry, location)) {
            metrics.invalidations.increment();
            files.entryRemoved(ChunkKeys.fileId(key));
            spaces.releaseAfterCheckpoint(spaces.space(ChunkLocation.space(location)), ChunkLocation.lba(location),
                    ChunkLocation.order(ChunkLocation.length(location)));
        }
    }

    /**
     * The file is gone or changed: none of its chunks is served from now on, and their blocks go
     * back to the free lists in a sweep shortly after (batched with other invalidations).
     */
    public void invalidateFile(CachedFile file) {
        if (files.invalidate(file) && sweepScheduled.compareAndSet(false, true) && !closed) {
            try {
                maintenance.schedule(() -> {
                    sweepScheduled.set(false);
                    sweepInvalidatedFiles();
                }, SWEEP_DELAY_MILLIS, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                sweepScheduled.set(false); // closing: the file is already never served
            }
        }
    }

    /** Removes every entry of invalidated files now; returns how many were removed. */
    public int sweepInvalidatedFiles() {
        // The table first, the index second: an entry moving meanwhile is caught in one of them.
        int removed = sweepRecovered();
        removed += index.removeIf(entry -> !files.isLive(entry.fileId()), this::releaseRemoved);
        if (dram != null) {
            dram.removeIf(key -> !files.isLive(ChunkKeys.fileId(key)));
        }
        files.forgetEmptyInvalidated();
        return removed;
    }

    private int sweepRecovered() {
        RecoveredEntries table = recovered;
        int removed = 0;
        for (int entry = 0; table != null && entry < table.slots(); entry++) {
            long location = table.location(entry);
            int fileId = ChunkKeys.fileId(table.key(entry));
            if (!ChunkLocation.isDead(location) && !files.isLive(fileId) && table.take(entry, location)) {
                metrics.invalidations.increment();
                files.entryRemoved(fileId);
                spaces.release(spaces.space(ChunkLocation.space(location)), ChunkLocation.lba(location),
                        ChunkLocation.order(ChunkLocation.length(location)));
                removed++;
            }
        }
        return removed;
    }

    /** An entry of a file that is gone or changed: recovery drops such entries, so its run is free at once. */
    private void releaseRemoved(ChunkEntry entry) {
        metrics.invalidations.increment();
        long location = entry.markDead();
        if (ChunkLocation.isOnFlash(location)) {
            spaces.release(spaces.space(ChunkLocation.space(location)), ChunkLocation.lba(location),
                    ChunkLocation.order(ChunkLocation.length(location)));
        }
    }

    /** Caffeine evicted the entry by weight: its blocks may be named by the last checkpoint. */
    private void onEvicted(ChunkEntry entry) {
        metrics.evictions.increment();
        releaseAfterCheckpoint(entry);
    }

    /** Frees an entry's run once the next checkpoint is durable (the last one may name it). */
    private void releaseAfterCheckpoint(ChunkEntry entry) {
        long location = entry.markDead();
        if (ChunkLocation.isOnFlash(location)) {
            spaces.releaseAfterCheckpoint(spaces.space(ChunkLocation.space(location)), ChunkLocation.lba(location),
                    ChunkLocation.order(ChunkLocation.length(location)));
        }
    }

    /** Averages loads since the last run and moves hot chunks off an overloaded space. */
    public synchronized int runMaintenance() {
        long now = System.nanoTime();
        double seconds = Math.max(0.001, (now - lastTickNanos) / 1e9);
        lastTickNanos = now;
        spaces.tickLoads(seconds);
        AddressSpace[] imbalance = spaces.imbalance(config.rebalanceFactor(), MINIMUM_REBALANCE_LOAD);
        return imbalance == null ? 0 : migrator.moveHottest(imbalance[0], imbalance[1], config.migrationBatch());
    }

    private void runMaintenanceQuietly() {
        try {
            runMaintenance();
        } catch (RuntimeException e) {
            LOG.warn("flash cache: maintenance failed", e);
        }
    }

    /** Runs the index's pending evictions now (tests and benchmarks use it for exact counts). */
    public void cleanUp() {
        index.cleanUp();
    }

    public SpaceManager spaces() {
        return spaces;
    }

    public FileRegistry files() {
        return files;
    }

    ChunkIndex index() {
        return index;
    }

    /** Starts moving recovered entries into the index in the background (tests that started without). */
    void moveRecoveredInBackground() {
        if (promoter != null) {
            promoter.start();
        }
    }

    /** Bytes the index may hold. */
    public long capacityBytes() {
        return indexBlocks * BlockDevice.BLOCK_SIZE;
    }

    /** Chunks in the index, including recovered ones not yet moved into it. */
    public long entries() {
        return index.size() + recoveredNotMoved().entries();
    }

    /** Bytes of flash the index's entries take (recovered ones not yet moved included). */
    public long weightedBytes() {
        return (index.weightedBlocks() + recoveredNotMoved().blocks()) * BlockDevice.BLOCK_SIZE;
    }

    /** Recovered entries still waiting to move into the index (an empty table once all have). */
    RecoveredEntries recoveredNotMoved() {
        RecoveredEntries table = recovered;
        return table == null ? EMPTY : table;
    }

    public CacheStats stats() {
        List<CacheStats.SpaceStats> spaceStats = new ArrayList<>();
        for (AddressSpace space : spaces.spaces()) {
            DeviceBreaker breaker = breakers.get(space.index());
            spaceStats.add(new CacheStats.SpaceStats(space.index(), space.driver().path(), space.dataBlocks(),
                    space.usedBlocks(), space.freeBlocks(), space.heldBlocks(), space.reads().perSecond(),
                    space.writes().perSecond(), space.driver().writesInFlight(), breaker.bypassed(), breaker.trips(),
                    breaker.refusedReads()));
        }
        CacheMetrics m = metrics;
        return new CacheStats(m.memoryHits.sum(), m.dramHits.sum(), m.flashHits.sum(), m.misses.sum(), m.puts.sum(),
                m.putsAlreadyCached.sum(), m.uncacheable.sum(), m.droppedQueueFull.sum(),
                m.droppedEvictedBeforeWrite.sum(), m.droppedNoSpace.sum(), m.flashBytesRead.sum(),
                m.flashBytesWritten.sum(), m.flashWrites.sum(), m.checksumErrors.sum(), m.readErrors.sum(),
                m.writeErrors.sum(), m.readTimeouts.sum(), m.staleReads.sum(), m.evictions.sum(),
                m.invalidations.sum(), m.migrations.sum(), m.readAheads.sum(), m.pairedReads.sum(), m.followersServed.sum(),
                m.checkpoints.sum(),
                m.checkpointFailures.sum(), checkpointer.lastSequence(), checkpointPolicy.changesSince(changes()),
                recoveredEntries, entries(),
                index.weightedBlocks() + recoveredNotMoved().blocks(),
                queue.queuedBytes(), queue.queuedChunks(), List.copyOf(spaceStats), m.flashHitLatency());
    }

    /** Stops the cache: background work ends, a final checkpoint is written, the devices close. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        maintenance.shutdownNow();
        try {
            maintenance.awaitTermination(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (promoter != null) {
            promoter.stop();
        }
        queue.close();
        checkpointQuietly();
        drivers.forEach(StorageDriver::close);
    }
}

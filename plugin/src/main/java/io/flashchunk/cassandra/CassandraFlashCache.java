package io.flashchunk.cassandra;

import io.flashchunk.cache.CacheConfig;
import io.flashchunk.cache.FlashCache;
import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cassandra.config.ChunksOnFlash;
import io.flashchunk.cassandra.jmx.AdapterCounters;
import io.flashchunk.cassandra.jmx.FlashChunkCacheMetrics;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.management.JMException;
import org.apache.cassandra.cache.ChunkCache;
import org.apache.cassandra.io.util.ChunkReader;
import org.apache.cassandra.io.util.FileHandle;
import org.apache.cassandra.io.util.RebuffererFactory;
import org.apache.cassandra.utils.FBUtilities;
import org.apache.cassandra.utils.memory.BufferPools;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flash cache as Cassandra's chunk cache: what the agent's hooks on {@code ChunkCache} call
 * once {@code chunk_cache_class} names this class and the cache has started. One per JVM.
 */
public final class CassandraFlashCache implements AdapterCounters {
    /** The value of {@code chunk_cache_class} that turns the flash cache on. */
    public static final String CHUNK_CACHE_CLASS = CassandraFlashCache.class.getName();

    private static final Logger LOG = LoggerFactory.getLogger(CassandraFlashCache.class);
    private static final long RELEASE_CHECK_MILLIS = 500;

    private static volatile CassandraFlashCache active;

    private final FlashCache cache;
    private final SSTableFiles files;
    private final ScheduledExecutorService releaseChecks;
    private final ChunkReadRecorder recorder;
    private final LongAdder uncachedFiles = new LongAdder();
    private final TableChunkForms chunkForms = new TableChunkForms();
    private final LongAdder positionInvalidations = new LongAdder();
    private volatile ChunkService chunks;

    private CassandraFlashCache(FlashCache cache, ChunkReadRecorder recorder) {
        this.cache = cache;
        this.recorder = recorder;
        this.files = new SSTableFiles(cache);
        this.releaseChecks = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "flashchunk-released-files");
            thread.setDaemon(true);
            return thread;
        });
        releaseChecks.scheduleWithFixedDelay(this::checkReleasedQuietly, RELEASE_CHECK_MILLIS, RELEASE_CHECK_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    /** What flash holds of each table's chunks, from now on (before {@link #start}: from the start). */
    public static void storeChunks(ChunksOnFlash chunksOnFlash) {
        TableChunkForms.configure(chunksOnFlash);
    }

    /**
     * Checks the settings that name tables against the schema the node has loaded, logging what they
     * name that it does not know; the agent calls it as the node starts its client transports. Never
     * throws: a setting checked is never a reason for a node not to start.
     */
    public static void checkSettingsAgainstSchema() {
        if (active == null) {
            return;
        }
        try {
            TableChunkForms.checkTablesSetApart();
        } catch (Throwable e) { // whatever it was, the warm-up after this in the same advice must still run
            LOG.info("flash chunk cache: the settings that name tables could not be checked against the schema ({})",
                    e.toString());
        }
    }

    /**
     * Opens the devices (recovering the last checkpoint) and makes this the chunk cache of the JVM.
     * Called once, by the configuration loader, before Cassandra creates its ChunkCache.
     */
    public static synchronized CassandraFlashCache start(CacheConfig config) throws IOException {
        if (active != null) {
            return active;
        }
        CassandraFlashCache started = new CassandraFlashCache(FlashCache.open(config), readRecorder());
        try {
            new FlashChunkCacheMetrics(started.cache, started).register();
        } catch (JMException | RuntimeException e) {
            LOG.warn("flash chunk cache: its JMX beans could not all be registered ({}); the cache runs without them",
                    e.toString());
        }
        // what runs, named before the cache is published: nothing may fail after that
        String versions = "FlashChunk " + productVersion() + " on Cassandra " + FBUtilities.getReleaseVersionString()
                + ", Java " + System.getProperty("java.version");
        Runtime.getRuntime().addShutdownHook(new Thread(started::close, "flashchunk-shutdown"));
        active = started;
        LOG.info("flash chunk cache: serving Cassandra's chunk cache from {} device(s), capacity {} MiB, {} chunks "
                + "recovered ({})", config.devices().size(), started.cache.capacityBytes() >> 20,
                started.cache.entries(), versions);
        return started;
    }

    /** This jar's version, from its manifest (a build outside the jar has none). */
    static String productVersion() {
        String version = CassandraFlashCache.class.getPackage().getImplementationVersion();
        return version != null ? version : "(unpackaged build)";
    }

    /** The recorder of chunk reads the JVM options ask for; none if they ask for none or it cannot start. */
    private static ChunkReadRecorder readRecorder() {
        try {
            return ChunkReadRecorder.fromSystemProperties();
        } catch (IOException | RuntimeException e) {
            LOG.warn("flash chunk cache: chunk reads are not recorded: {}", e.toString());
            return null;
        }
    }

    /** The running flash cache, or null when Cassandra's own chunk cache is in charge. */
    public static CassandraFlashCache active() {
        return active;
    }

    public FlashCache cache() {
        return cache;
    }

    /**
     * What {@code ChunkCache.wrap} returns for {@code reader}: a flash-cached rebufferer, or the reader
     * itself (uncached) when its chunks cannot be cached (size below a block or above the largest).
     */
    RebuffererFactory wrap(ChunkCache stock, ChunkReader reader) throws IOException {
        int chunkSize = reader.chunkSize();
        if (chunkSize < BlockDevice.BLOCK_SIZE || chunkSize > FlashCache.MAX_CHUNK_BYTES || Integer.bitCount(chunkSize) != 1) {
            uncachedFiles.increment();
            return reader;
        }
        String path = reader.channel().filePath();
        CachedFile file = files.open(path);
        file.storeCompressed(chunkForms.compress(reader, path));
        return new FlashRebufferer(reader, file, chunks(stock));
    }

    void invalidatePosition(FileHandle handle, long position) {
        positionInvalidations.increment();
        if (handle.rebuffererFactory() instanceof FlashRebufferer) {
            ((FlashRebufferer) handle.rebuffererFactory()).invalidate(position);
        }
    }

    void invalidateFile(String path) {
        files.released(path);
    }

    long capacity() {
        return cache.capacityBytes();
    }

    int size() {
        return (int) Math.min(Integer.MAX_VALUE, cache.entries());
    }

    long weightedSize() {
        return cache.weightedBytes();
    }

    @Override
    public long uncachedFiles() {
        return uncachedFiles.sum();
    }

    @Override
    public long positionInvalidations() {
        return positionInvalidations.sum();
    }

    @Override
    public long watchedFiles() {
        return files.watched();
    }

    @Override
    public long lengthMismatches() {
        ChunkService service = chunks;
        return service == null ? 0 : service.lengthMismatches();
    }

    /** Ends the cache with a final checkpoint (JVM shutdown, or Cassandra closing its chunk cache). */
    void close() {
        releaseChecks.shutdownNow();
        if (recorder != null) {
            recorder.close();
        }
        cache.close();
        if (cache.closedWithCheckpoint()) {
            LOG.info("flash chunk cache: closed after a final checkpoint; {}", cache.stats());
        } else {
            LOG.warn("flash chunk cache: closed without a final checkpoint (the warning before says why); a restart "
                    + "recovers what the last durable checkpoint named; {}", cache.stats());
        }
    }

    @Override
    public long cacheFailures() {
        ChunkService service = chunks;
        return service == null ? 0 : service.cacheFailures();
    }

    @Override
    public long outOfMemory() {
        ChunkService service = chunks;
        return service == null ? 0 : service.outOfMemory();
    }

    private ChunkService chunks(ChunkCache stock) {
        ChunkService service = chunks;
        if (service == null) {
            synchronized (this) {
                if (chunks == null) {
                    chunks = new ChunkService(cache, ChunkReadMetrics.of(stock.metrics),
                            MissBuffers.of(BufferPools.forChunkCache()), recorder);
                }
                service = chunks;
            }
        }
        return service;
    }

    private void checkReleasedQuietly() {
        try {
            files.checkReleased();
        } catch (RuntimeException e) {
            LOG.warn("flash chunk cache: checking released files failed: {}", e.toString());
        }
    }
}

package io.flashchunk.cassandra;

import io.flashchunk.cache.CachedChunk;
import io.flashchunk.cache.FlashCache;
import io.flashchunk.cache.FollowingChunk;
import io.flashchunk.cache.WarningThrottle;
import io.flashchunk.cache.files.CachedFile;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.apache.cassandra.io.util.ChunkReader;
import org.apache.cassandra.io.util.Rebufferer.BufferHolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves Cassandra's chunk reads: a verified hit from the flash cache, else the chunk read from
 * the SSTable and offered to the cache. Fails open: whatever goes wrong inside the cache becomes a
 * plain SSTable read and a counter; only the SSTable's own errors reach Cassandra, as without us.
 * That includes running out of memory inside the cache (its pooled direct buffers): Cassandra's
 * JVMStabilityInspector answers any OutOfMemoryError but a heap one by forcing a heap one, which ends
 * the node, where the SSTable read takes its buffer from Cassandra's own pool. Only the JVM's other
 * errors (a stack overflow, an internal error) still propagate. Hits and misses are recorded in Cassandra's
 * chunk-cache metrics (nodetool info, system_views).
 */
final class ChunkService {
    private static final Logger LOG = LoggerFactory.getLogger(ChunkService.class);

    private final FlashCache cache;
    private final ChunkReadMetrics metrics;
    private final MissBuffers missBuffers;
    private final ChunkReadRecorder recorder;
    private final LongAdder lengthMismatches = new LongAdder();
    private final LongAdder cacheFailures = new LongAdder();
    private final LongAdder outOfMemory = new LongAdder();
    private final WarningThrottle outOfMemoryWarnings = new WarningThrottle(10, TimeUnit.SECONDS);

    /** @param recorder where each chunk read is recorded for the simulator, or null (the default) */
    ChunkService(FlashCache cache, ChunkReadMetrics metrics, MissBuffers missBuffers, ChunkReadRecorder recorder) {
        this.cache = cache;
        this.metrics = metrics;
        this.missBuffers = missBuffers;
        this.recorder = recorder;
    }

    /** A reader asks for the chunk at {@code chunkStart}: recorded when reads are being recorded. */
    void reading(CachedFile file, long chunkStart, int expectedLength) {
        if (recorder != null) {
            recorder.record(file.id(), chunkStart, expectedLength);
        }
    }

    /**
     * A hit holding exactly {@code expectedLength} bytes, or null. With {@code followers}, a hit whose
     * read brought the file's next chunk along hands that one to it.
     */
    BufferHolder cached(CachedFile file, long chunkStart, int expectedLength, Consumer<FollowingChunk> followers) {
        CachedChunk chunk;
        try {
            chunk = cache.get(file, chunkStart, expectedLength, followers != null);
        } catch (Throwable t) {
            failed("get", t);
            return null;
        }
        BufferHolder hit = holder(file, chunk, chunkStart, expectedLength);
        FollowingChunk next = hit == null || followers == null ? null : chunk.takeFollower();
        if (next != null) {
            followers.accept(next);
        }
        return hit;
    }

    /** The chunk a hit's read brought along, now that its reader asks for it; null if it is no good. */
    BufferHolder claimed(CachedFile file, FollowingChunk follower, long chunkStart, int expectedLength) {
        CachedChunk chunk;
        try {
            chunk = cache.claim(file, follower);
        } catch (Throwable t) {
            failed("claim", t);
            return null;
        }
        return holder(file, chunk, chunkStart, expectedLength);
    }

    /** The hit for Cassandra, if it holds exactly the bytes this reader's chunk must have; else null. */
    private BufferHolder holder(CachedFile file, CachedChunk chunk, long chunkStart, int expectedLength) {
        if (chunk == null) {
            return null;
        }
        if (chunk.length() != expectedLength) {
            // Cached through a reader with another chunk size, or before the file grew: not this chunk.
            chunk.release();
            lengthMismatches.increment();
            invalidate(file, chunkStart);
            return null;
        }
        metrics.hit();
        return new ChunkHolder(chunk.buffer(), chunkStart, chunk::release);
    }

    /**
     * A miss: reads the chunk from the SSTable (its errors propagate), hands Cassandra all the
     * reader returned, and offers the cache the {@code expectedLength} bytes its file holds.
     */
    BufferHolder load(ChunkReader source, CachedFile file, long chunkStart, int expectedLength) {
        ByteBuffer buffer = missBuffers.get(source.chunkSize(), source.preferredBufferType());
        // Taken before the read: an invalidation after this instant keeps these bytes out.
        long started = System.nanoTime();
        try {
            source.readChunk(chunkStart, buffer);
        } catch (Throwable t) {
            missBuffers.put(buffer);
            throw t;
        }
        metrics.miss(System.nanoTime() - started);
        offer(file, chunkStart, buffer, expectedLength, started);
        return new ChunkHolder(buffer, chunkStart, () -> missBuffers.put(buffer));
    }

    /**
     * Offers the first {@code expectedLength} bytes read: the chunk as this reader's file holds it.
     * A reader may return more, when the file on disk runs past the length it was opened with (opened
     * early while still written, or cut back and written again by a scrub); those bytes are not this
     * file's yet and may not be the ones a reader of the longer file finds, so they are never cached.
     * A read shorter than that is no chunk the cache could check a hit against: nothing is offered.
     */
    private void offer(CachedFile file, long chunkStart, ByteBuffer read, int expectedLength, long started) {
        if (expectedLength <= 0 || read.remaining() < expectedLength) {
            return;
        }
        ByteBuffer chunk = read.duplicate();
        chunk.limit(chunk.position() + expectedLength);
        try {
            cache.put(file, chunkStart, chunk, started);
        } catch (Throwable t) {
            failed("put", t);
        }
    }

    void invalidate(CachedFile file, long chunkStart) {
        try {
            cache.invalidatePosition(file, chunkStart);
        } catch (Throwable t) {
            failed("invalidatePosition", t);
        }
    }

    /** Whether hits may read the file's next chunk along (overflow_read). */
    boolean overflowRead() {
        return cache.config().overflowRead();
    }

    long lengthMismatches() {
        return lengthMismatches.sum();
    }

    long cacheFailures() {
        return cacheFailures.sum();
    }

    long outOfMemory() {
        return outOfMemory.sum();
    }

    /**
     * Counts what {@code operation} threw inside the cache, the read going on without it; rethrows
     * a JVM error other than running out of memory, which no fallback can mend.
     */
    private void failed(String operation, Throwable t) {
        if (t instanceof OutOfMemoryError) {
            outOfMemory.increment();
            outOfMemoryWarnings.warn(LOG, "flash chunk cache: out of memory in " + operation
                    + "; the read goes on without the cache: {}", t.toString());
            return;
        }
        if (t instanceof VirtualMachineError) {
            throw (VirtualMachineError) t;
        }
        cacheFailures.increment();
        if (cacheFailures.sum() <= 10) {
            LOG.warn("flash chunk cache: {} failed, the SSTable is read instead: {}", operation, t.toString());
        }
    }
}

package io.flashchunk.cassandra;

import io.flashchunk.cache.CachedChunk;
import io.flashchunk.cache.FlashCache;
import io.flashchunk.cache.FollowingChunk;
import io.flashchunk.cache.index.CachedFile;
import java.nio.ByteBuffer;
import java.util.function.Consumer;
import java.util.concurrent.atomic.LongAdder;
import org.apache.cassandra.io.util.ChunkReader;
import org.apache.cassandra.io.util.Rebufferer.BufferHolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves Cassandra's chunk reads: a verified hit from the flash cache, else the chunk read from
 * the SSTable and offered to the cache. Fails open: whatever goes wrong inside the cache becomes a
 * plain SSTable read and a counter; only the SSTable's own errors reach Cassandra, as without us.
 * Hits and misses are recorded in Cassandra's chunk-cache metrics (nodetool info, system_views).
 */
final class ChunkService {
    private static final Logger LOG = LoggerFactory.getLogger(ChunkService.class);

    private final FlashCache cache;
    private final ChunkReadMetrics metrics;
    private final MissBuffers missBuffers;
    private final ChunkReadRecorder recorder;
    private final LongAdder lengthMismatches = new LongAdder();
    private final LongAdder cacheFailures = new LongAdder();

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
        } catch (VirtualMachineError e) {
            throw e;
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
        } catch (VirtualMachineError e) {
            throw e;
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

    /** A miss: reads the chunk from the SSTable (its errors propagate) and offers it to the cache. */
    BufferHolder load(ChunkReader source, CachedFile file, long chunkStart) {
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
        try {
            cache.put(file, chunkStart, buffer.duplicate(), started);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable t) {
            failed("put", t);
        }
        return new ChunkHolder(buffer, chunkStart, () -> missBuffers.put(buffer));
    }

    void invalidate(CachedFile file, long chunkStart) {
        try {
            cache.invalidatePosition(file, chunkStart);
        } catch (VirtualMachineError e) {
            throw e;
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

    private void failed(String operation, Throwable t) {
        cacheFailures.increment();
        if (cacheFailures.sum() <= 10) {
            LOG.warn("flash chunk cache: {} failed, the SSTable is read instead: {}", operation, t.toString());
        }
    }
}

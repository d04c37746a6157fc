package io.flashchunk.cache;

import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.cache.files.FileRegistry;
import io.flashchunk.cache.format.RecordFormat;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A persistent read cache of file chunks on flash, as the Cassandra adapter uses it: files are
 * registered and invalidated, chunks looked up ({@link #get}) and offered on a miss ({@link #put}).
 * Implementations never throw on the data path and never serve a wrong byte: anything unexpected is
 * a miss plus a counter, and the caller reads its file as if there were no cache.
 *
 * <p>{@link SegmentFlashCache} implements it: a compact index over flash segments
 * (docs/engine.md). The adapter depends on this interface only.
 */
public interface FlashCache extends AutoCloseable {
    /** The largest chunk the cache keeps (64 KiB, Cassandra's largest chunk length); larger ones are not cached. */
    int MAX_CHUNK_BYTES = RecordFormat.MAX_CHUNK_BYTES;

    /** Opens every configured device and starts the cache on them (recovering or formatting). */
    static FlashCache open(CacheConfig config) throws IOException {
        return SegmentFlashCache.open(config);
    }

    CacheConfig config();

    /**
     * The registration for the file with this identity. A registration of the same path keeps its
     * chunks only if it is provably the same file, grown perhaps; any other is invalidated first, so
     * its chunks are never served for the new file.
     */
    CachedFile registerFile(FileIdentity identity);

    FileRegistry files();

    /**
     * The chunk of {@code file} starting at {@code position}, at most {@code maxLength} bytes, or
     * null on a miss; the caller must release a returned chunk. With {@code withFollower}, a hit may
     * bring the file's next chunk along ({@link CachedChunk#takeFollower}), to be {@link #claim claimed}.
     */
    CachedChunk get(CachedFile file, long position, int maxLength, boolean withFollower);

    /** The follower of an earlier hit, now that its reader asks for it, if it is still good; else null (released). */
    CachedChunk claim(CachedFile file, FollowingChunk follower);

    /**
     * Offers a chunk read from the file on a miss (position to limit), whose read began at
     * {@code readStartedNanos} (System.nanoTime): not admitted if the position is invalidated after
     * that. Returns at once.
     */
    void put(CachedFile file, long position, ByteBuffer chunk, long readStartedNanos);

    /** The chunk at {@code position} changed: no get that starts after this call serves it. */
    void invalidatePosition(CachedFile file, long position);

    /** The file is gone or changed: none of its chunks is served from now on. */
    void invalidateFile(CachedFile file);

    /** The counters as one snapshot. */
    CacheStats stats();

    /** Each address space's figures, as {@link #stats()} has them, without the rest (cheaper: no histograms). */
    java.util.List<CacheStats.SpaceStats> spaceStats();

    /** Bytes of chunks the cache may hold. */
    long capacityBytes();

    /** Chunks cached. */
    long entries();

    /** Bytes of flash the cached chunks take. */
    long weightedBytes();

    /**
     * Writes a full checkpoint now (an operator's request: what any release reads, and what a restart
     * recovers with no segment summary to read); a description of it.
     */
    String checkpointNow() throws IOException;

    /**
     * After {@link #close}: whether it ended with a durable checkpoint of everything written, so that a
     * restart finds all of it (false when that checkpoint failed or the writer did not stop in time).
     */
    boolean closedWithCheckpoint();

    /** Stops the cache: background work ends, a final checkpoint is written, the devices close. */
    @Override
    void close();
}

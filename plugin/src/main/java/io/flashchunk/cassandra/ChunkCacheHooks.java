package io.flashchunk.cassandra;

import org.apache.cassandra.cache.ChunkCache;
import org.apache.cassandra.io.util.ChunkReader;
import org.apache.cassandra.io.util.FileHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entry points the agent's advice calls from inside {@code ChunkCache}'s methods. Each returns
 * "not handled" (null or false) when the flash cache is not running, and never throws: on any
 * failure the stock method runs as if we were not there.
 */
public final class ChunkCacheHooks {
    private static final Logger LOG = LoggerFactory.getLogger(ChunkCacheHooks.class);

    private ChunkCacheHooks() {
    }

    public static boolean isActive() {
        return CassandraFlashCache.active() != null;
    }

    /** Our rebuffer factory for {@code reader}, or null to let the stock cache wrap it. */
    public static Object wrap(Object stockCache, Object reader) {
        CassandraFlashCache cache = CassandraFlashCache.active();
        if (cache == null) {
            return null;
        }
        try {
            return cache.wrap((ChunkCache) stockCache, (ChunkReader) reader);
        } catch (Throwable t) {
            LOG.warn("flash chunk cache: cannot cache {}, Cassandra's own chunk cache takes it: {}", reader, t.toString());
            return null;
        }
    }

    public static boolean invalidateFile(String path) {
        CassandraFlashCache cache = CassandraFlashCache.active();
        if (cache == null) {
            return false;
        }
        try {
            cache.invalidateFile(path);
        } catch (Throwable t) {
            LOG.warn("flash chunk cache: invalidating {} failed: {}", path, t.toString());
        }
        // The stock cache still runs for files we could not take: let it forget this one too.
        return false;
    }

    public static boolean invalidatePosition(Object handle, long position) {
        CassandraFlashCache cache = CassandraFlashCache.active();
        if (cache == null) {
            return false;
        }
        try {
            cache.invalidatePosition((FileHandle) handle, position);
        } catch (Throwable t) {
            LOG.warn("flash chunk cache: invalidating position {} of {} failed: {}", position, handle, t.toString());
        }
        return false;
    }

    /** Capacity, size and weighted size as nodetool info and system_views.caches show them. */
    public static long capacity() {
        CassandraFlashCache cache = CassandraFlashCache.active();
        return cache == null ? 0 : cache.capacity();
    }

    public static int size() {
        CassandraFlashCache cache = CassandraFlashCache.active();
        return cache == null ? 0 : cache.size();
    }

    public static long weightedSize() {
        CassandraFlashCache cache = CassandraFlashCache.active();
        return cache == null ? 0 : cache.weightedSize();
    }

    /** Cassandra closing its chunk cache ends ours too (with a final checkpoint). */
    public static void close() {
        CassandraFlashCache cache = CassandraFlashCache.active();
        if (cache != null) {
            try {
                cache.close();
            } catch (Throwable t) {
                LOG.warn("flash chunk cache: close failed: {}", t.toString());
            }
        }
    }
}

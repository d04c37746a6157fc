package io.flashchunk.cassandra;

import io.flashchunk.cache.index.CachedFile;
import org.apache.cassandra.io.util.ChannelProxy;
import org.apache.cassandra.io.util.ChunkReader;
import org.apache.cassandra.io.util.Rebufferer;
import org.apache.cassandra.io.util.RebuffererFactory;

/**
 * What Cassandra reads one data file through when the flash cache is on: the counterpart of the
 * stock cache's CachingRebufferer. One instance per file handle, shared by all its readers
 * (thread-safe, holds no per-read state).
 */
final class FlashRebufferer implements Rebufferer, RebuffererFactory {
    private final ChunkReader source;
    private final CachedFile file;
    private final ChunkService chunks;
    private final int chunkSize;
    private final long alignmentMask;

    FlashRebufferer(ChunkReader source, CachedFile file, ChunkService chunks) {
        this.source = source;
        this.file = file;
        this.chunks = chunks;
        this.chunkSize = source.chunkSize();
        this.alignmentMask = -chunkSize;
    }

    @Override
    public BufferHolder rebuffer(long position) {
        long chunkStart = position & alignmentMask;
        // The bytes a correct chunk holds: a whole chunk, or the file's short last one.
        int expectedLength = (int) Math.min(chunkSize, source.fileLength() - chunkStart);
        BufferHolder hit = chunks.cached(file, chunkStart, expectedLength);
        return hit != null ? hit : chunks.load(source, file, chunkStart);
    }

    /** Early open: the chunk holding {@code position} will change. */
    void invalidate(long position) {
        chunks.invalidate(file, position & alignmentMask);
    }

    CachedFile file() {
        return file;
    }

    @Override
    public Rebufferer instantiateRebufferer(boolean isScan) {
        return this;
    }

    @Override
    public void close() {
        source.close();
    }

    @Override
    public void closeReader() {
        // Shared by all readers of the handle: nothing per reader to release.
    }

    @Override
    public ChannelProxy channel() {
        return source.channel();
    }

    @Override
    public long fileLength() {
        return source.fileLength();
    }

    @Override
    public double getCrcCheckChance() {
        return source.getCrcCheckChance();
    }

    @Override
    public String toString() {
        return "FlashRebufferer:" + source;
    }
}

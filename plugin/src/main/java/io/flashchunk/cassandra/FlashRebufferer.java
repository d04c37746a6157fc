package io.flashchunk.cassandra;

import io.flashchunk.cache.files.CachedFile;
import org.apache.cassandra.io.util.ChannelProxy;
import org.apache.cassandra.io.util.ChunkReader;
import org.apache.cassandra.io.util.Rebufferer;
import org.apache.cassandra.io.util.RebuffererFactory;

/**
 * What Cassandra reads one data file through when the flash cache is on: the counterpart of the
 * stock cache's CachingRebufferer. One instance per file handle, shared by all its readers
 * (thread-safe); each reader gets a {@link FlashFileReader} of its own.
 *
 * <p>It also judges, for its file, whether reading a hit's next chunk along (when it lies beside on
 * flash) pays: a served follower saves a whole I/O, an unused one costs only the transfer of its
 * bytes (it is verified only when served), so point reads ask for followers while at least about one
 * in five is used, and otherwise still on one hit in {@value #PROBE_EVERY} so the score can recover.
 * Scans always ask and are not scored (compaction would vouch for point reads it says nothing
 * about). The score is a heuristic shared by the file's readers without synchronisation: a lost
 * update only nudges it.
 */
final class FlashRebufferer implements RebuffererFactory {
    private static final int USED = 4;
    private static final int WASTED = -1;
    private static final int BOUND = 64;
    private static final int PROBE_EVERY = 16;

    private final ChunkReader source;
    private final CachedFile file;
    private final ChunkService chunks;
    private final long alignmentMask;
    private int followerScore;
    private int probes;

    FlashRebufferer(ChunkReader source, CachedFile file, ChunkService chunks) {
        this.source = source;
        this.file = file;
        this.chunks = chunks;
        this.alignmentMask = -source.chunkSize();
    }

    long chunkStart(long position) {
        return position & alignmentMask;
    }

    /** The bytes a correct chunk at {@code chunkStart} holds: a whole chunk, or the file's short last one. */
    int expectedLength(long chunkStart) {
        return (int) Math.min(source.chunkSize(), source.fileLength() - chunkStart);
    }

    ChunkReader source() {
        return source;
    }

    ChunkService chunks() {
        return chunks;
    }

    CachedFile file() {
        return file;
    }

    /** Whether a reader of this file (a scan, or not) should have a hit's next chunk read along. */
    boolean wantsFollowers(boolean scan) {
        return chunks.overflowRead() && (scan || followerScore >= 0 || ++probes % PROBE_EVERY == 0);
    }

    /** A point read's follower was served (used) or let go (wasted). */
    void followerOutcome(boolean used) {
        followerScore = Math.max(-BOUND, Math.min(BOUND, followerScore + (used ? USED : WASTED)));
    }

    /** Early open: the chunk holding {@code position} will change. */
    void invalidate(long position) {
        chunks.invalidate(file, chunkStart(position));
    }

    /** Cassandra 5.0 and later (not {@code @Override}: the source also builds against 4.1's interface). */
    public Rebufferer instantiateRebufferer(boolean isScan) {
        return new FlashFileReader(this, isScan);
    }

    /** Cassandra 4.1, which does not tell scans apart: a point read. */
    public Rebufferer instantiateRebufferer() {
        return instantiateRebufferer(false);
    }

    @Override
    public void close() {
        source.close();
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

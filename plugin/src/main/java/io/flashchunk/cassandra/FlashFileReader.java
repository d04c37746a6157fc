package io.flashchunk.cassandra;

import io.flashchunk.cache.FollowingChunk;
import org.apache.cassandra.io.util.ChannelProxy;
import org.apache.cassandra.io.util.Rebufferer;

/**
 * One Cassandra reader's view of a data file: hits from the flash cache, misses from the SSTable,
 * and the paper's overflow read. A partition that runs past the end of a chunk makes its reader
 * ask for the next chunk right after; when a hit's read brought that chunk along (it lay beside on
 * flash), it is kept here and served without another I/O. Scans (compaction) always ask for it.
 *
 * <p>A Cassandra reader is used by one thread at a time: not thread-safe.
 */
final class FlashFileReader implements Rebufferer {
    private final FlashRebufferer shared;
    private final boolean scan;
    private FollowingChunk follower;

    FlashFileReader(FlashRebufferer shared, boolean scan) {
        this.shared = shared;
        this.scan = scan;
    }

    @Override
    public BufferHolder rebuffer(long position) {
        long chunkStart = shared.chunkStart(position);
        int expectedLength = shared.expectedLength(chunkStart);
        shared.chunks().reading(shared.file(), chunkStart, expectedLength);
        FollowingChunk next = follower;
        follower = null;
        if (next != null) {
            BufferHolder held = next.position() == chunkStart
                    ? shared.chunks().claimed(shared.file(), next, chunkStart, expectedLength) : null;
            if (held == null) {
                next.release();
            }
            outcome(held != null);
            if (held != null) {
                return held;
            }
        }
        BufferHolder hit = shared.chunks().cached(shared.file(), chunkStart, expectedLength,
                shared.wantsFollowers(scan) ? this::keep : null);
        return hit != null ? hit : shared.chunks().load(shared.source(), shared.file(), chunkStart, expectedLength);
    }

    private void keep(FollowingChunk next) {
        follower = next;
    }

    @Override
    public void closeReader() {
        FollowingChunk next = follower;
        follower = null;
        if (next != null) {
            next.release();
            outcome(false);
        }
    }

    private void outcome(boolean used) {
        if (!scan) {
            shared.followerOutcome(used);
        }
    }

    @Override
    public void close() {
        closeReader();
        shared.close();
    }

    @Override
    public ChannelProxy channel() {
        return shared.channel();
    }

    @Override
    public long fileLength() {
        return shared.fileLength();
    }

    @Override
    public double getCrcCheckChance() {
        return shared.getCrcCheckChance();
    }

    @Override
    public String toString() {
        return "FlashFileReader:" + shared;
    }
}

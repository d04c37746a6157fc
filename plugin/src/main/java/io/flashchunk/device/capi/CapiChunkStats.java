package io.flashchunk.device.capi;

import java.util.Objects;

/**
 * What the capiblock library itself counted for one open chunk ({@code cblk_get_stats}): an
 * observation of the device from below our own bookkeeping.
 */
public final class CapiChunkStats {
    private final long asyncReads;
    private final long asyncWrites;
    private final int maxAsyncReadsInFlight;
    private final int maxAsyncWritesInFlight;
    private final long blocksRead;
    private final long blocksWritten;
    private final long errors;

    public CapiChunkStats(long asyncReads, long asyncWrites, int maxAsyncReadsInFlight, int maxAsyncWritesInFlight,
                          long blocksRead, long blocksWritten, long errors) {
        this.asyncReads = asyncReads;
        this.asyncWrites = asyncWrites;
        this.maxAsyncReadsInFlight = maxAsyncReadsInFlight;
        this.maxAsyncWritesInFlight = maxAsyncWritesInFlight;
        this.blocksRead = blocksRead;
        this.blocksWritten = blocksWritten;
        this.errors = errors;
    }

    public long asyncReads() {
        return asyncReads;
    }

    public long asyncWrites() {
        return asyncWrites;
    }

    public int maxAsyncReadsInFlight() {
        return maxAsyncReadsInFlight;
    }

    public int maxAsyncWritesInFlight() {
        return maxAsyncWritesInFlight;
    }

    public long blocksRead() {
        return blocksRead;
    }

    public long blocksWritten() {
        return blocksWritten;
    }

    public long errors() {
        return errors;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof CapiChunkStats)) {
            return false;
        }
        CapiChunkStats other = (CapiChunkStats) o;
        return asyncReads == other.asyncReads
                && asyncWrites == other.asyncWrites
                && maxAsyncReadsInFlight == other.maxAsyncReadsInFlight
                && maxAsyncWritesInFlight == other.maxAsyncWritesInFlight
                && blocksRead == other.blocksRead
                && blocksWritten == other.blocksWritten
                && errors == other.errors;
    }

    @Override
    public int hashCode() {
        return Objects.hash(asyncReads, asyncWrites, maxAsyncReadsInFlight, maxAsyncWritesInFlight, blocksRead,
                blocksWritten, errors);
    }

    @Override
    public String toString() {
        return "CapiChunkStats[asyncReads=" + asyncReads + ", asyncWrites=" + asyncWrites
                + ", maxAsyncReadsInFlight=" + maxAsyncReadsInFlight
                + ", maxAsyncWritesInFlight=" + maxAsyncWritesInFlight + ", blocksRead=" + blocksRead
                + ", blocksWritten=" + blocksWritten + ", errors=" + errors + "]";
    }
}

package io.flashchunk.device.capi;

/**
 * What the capiblock library itself counted for one open chunk ({@code cblk_get_stats}): an
 * observation of the device from below our own bookkeeping.
 */
public record CapiChunkStats(
        long asyncReads,
        long asyncWrites,
        int maxAsyncReadsInFlight,
        int maxAsyncWritesInFlight,
        long blocksRead,
        long blocksWritten,
        long errors) {
}

package io.flashchunk.cache.engine;

/**
 * The engine's counters, read together by {@link CacheEngine#stats()}: the one place they are
 * gathered, so a caller (the cache's statistics, a benchmark) names them as the engine does.
 * Counts since start; each is read once, so the record is a snapshot of counters that may move
 * between two of them, never a torn value.
 *
 * @param entries                   chunks in the index
 * @param queuedBytes               bytes offered and waiting for the writer
 * @param alreadyCached             offers of keys already in the index: not queued
 * @param queueFull                 offers dropped because the queue was full
 * @param notAdmitted               offers admission refused (their reads did not outweigh the victims')
 * @param dropped                   admitted offers the writer could not append (no segment, too large)
 * @param offeredBeforeInvalidation offers dropped because their key was invalidated after their read began
 * @param appended                  records appended to segments (reinserted ones included)
 * @param reinserted                records of reclaimed segments appended again
 * @param segmentsSealed            segments sealed and handed to the device
 * @param flashBytesWritten         flash the sealed segments take, each counted whole when it is sealed
 *                                  (a part-full one too); the devices' own count, checkpoints included, is
 *                                  {@code CacheStats.deviceBytesWritten}
 * @param segmentsReclaimed         segments reclaimed
 * @param failedSegmentWrites       segment writes that failed (their chunks left the index)
 * @param writerErrors              unexpected failures of the writer on a chunk
 * @param memoryReads               hits read from a segment buffer (not yet on flash)
 * @param flashBytesRead            bytes hits read from flash
 * @param pairedReads               flash hits that brought the file's next chunk with the same read
 * @param readTimeouts              flash reads slower than the read timeout: misses
 * @param busyMisses                hits not read because their device already had as many reads in flight as
 *                                  it may (those given up after the timeout included): misses
 * @param readErrors                flash reads that failed: misses
 * @param refusedRecords            reads that met another record than the key's: misses, never served
 * @param damagedRecords            reads whose record failed a checksum: misses, never served
 * @param invalidations             positions invalidated
 * @param checkpoints               checkpoints made durable
 * @param failedCheckpoints         checkpoints that failed
 * @param lastCheckpointSequence    the newest durable checkpoint's sequence (0: none yet)
 * @param appendedSinceCheckpoint   records appended since the last durable checkpoint began: what a crash could lose
 */
public record EngineStats(
        long entries,
        long queuedBytes,
        long alreadyCached,
        long queueFull,
        long notAdmitted,
        long dropped,
        long offeredBeforeInvalidation,
        long appended,
        long reinserted,
        long segmentsSealed,
        long flashBytesWritten,
        long segmentsReclaimed,
        long failedSegmentWrites,
        long writerErrors,
        long memoryReads,
        long flashBytesRead,
        long pairedReads,
        long readTimeouts,
        long busyMisses,
        long readErrors,
        long refusedRecords,
        long damagedRecords,
        long invalidations,
        long checkpoints,
        long failedCheckpoints,
        long lastCheckpointSequence,
        long appendedSinceCheckpoint) {
}

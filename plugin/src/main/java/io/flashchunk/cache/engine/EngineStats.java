package io.flashchunk.cache.engine;

import java.util.Objects;

/**
 * The engine's counters, read together by {@link CacheEngine#stats()}: the one place they are
 * gathered, so a caller (the cache's statistics, a benchmark) names them as the engine does.
 * Counts since start; each is read once, so the record is a snapshot of counters that may move
 * between two of them, never a torn value.
 */
public final class EngineStats {
    private final long entries;
    private final long queuedBytes;
    private final long alreadyCached;
    private final long queueFull;
    private final long notAdmitted;
    private final long dropped;
    private final long offeredBeforeInvalidation;
    private final long appended;
    private final long reinserted;
    private final long segmentsSealed;
    private final long flashBytesWritten;
    private final long segmentsReclaimed;
    private final long failedSegmentWrites;
    private final long writerErrors;
    private final long memoryReads;
    private final long flashBytesRead;
    private final long pairedReads;
    private final long readTimeouts;
    private final long busyMisses;
    private final long readErrors;
    private final long refusedRecords;
    private final long damagedRecords;
    private final long invalidations;
    private final long checkpoints;
    private final long failedCheckpoints;
    private final long deltaCheckpoints;
    private final long checkpointBytesWritten;
    private final long lastCheckpointSequence;
    private final long lastCheckpointMillis;
    private final long appendedSinceCheckpoint;
    private final DeadSpace deadSpace;
    private final long hotChunkMovesTaken;
    private final long hotChunksMoved;
    private final long segmentsDoomedForMoves;
    private final Compression compression;

    /**
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
     *     (a part-full one too); the devices' own count, checkpoints included, is
     *     {@code CacheStats.deviceBytesWritten}
     * @param segmentsReclaimed         segments reclaimed
     * @param failedSegmentWrites       segment writes that failed (their chunks left the index)
     * @param writerErrors              unexpected failures of the writer on a chunk
     * @param memoryReads               hits read from a segment buffer (not yet on flash)
     * @param flashBytesRead            bytes hits read from flash
     * @param pairedReads               flash hits that brought the file's next chunk with the same read
     * @param readTimeouts              flash reads slower than the read timeout: misses
     * @param busyMisses                hits not read because their device already had as many reads in flight as
     *     it may (those given up after the timeout included): misses
     * @param readErrors                flash reads that failed: misses
     * @param refusedRecords            reads that met another record than the key's: misses, never served
     * @param damagedRecords            reads whose record failed a checksum: misses, never served
     * @param invalidations             positions invalidated
     * @param checkpoints               checkpoints made durable
     * @param failedCheckpoints         checkpoints that failed
     * @param deltaCheckpoints          of the durable checkpoints, those that were deltas (the rest full)
     * @param checkpointBytesWritten    body bytes the durable checkpoints wrote (headers not counted)
     * @param lastCheckpointSequence    the newest durable checkpoint's sequence (0: none yet)
     * @param lastCheckpointMillis      when the newest durable checkpoint started, on the engine's clock: this
     *     run's, else the one the start recovered from (0: none)
     * @param appendedSinceCheckpoint   records appended since the last durable checkpoint began: what a crash could lose
     * @param deadSpace                 flash held by chunks no longer served, and what frees it
     * @param hotChunkMovesTaken        hits read from a loaded device taken to be written again in a less loaded one
     * @param hotChunksMoved            of those, the ones written again (the rest stayed where they were: the
     *     queue was full, no less loaded segment was open, or the chunk changed place first)
     * @param segmentsDoomedForMoves    segments of a less loaded device given up to make room for the moves
     *     (its coldest, when it had too few free)
     * @param compression               chunks stored compressed, and what that saved and cost
     */
    public EngineStats(long entries, long queuedBytes, long alreadyCached, long queueFull, long notAdmitted,
                       long dropped, long offeredBeforeInvalidation, long appended, long reinserted,
                       long segmentsSealed, long flashBytesWritten, long segmentsReclaimed, long failedSegmentWrites,
                       long writerErrors, long memoryReads, long flashBytesRead, long pairedReads, long readTimeouts,
                       long busyMisses, long readErrors, long refusedRecords, long damagedRecords, long invalidations,
                       long checkpoints, long failedCheckpoints, long deltaCheckpoints,
                       long checkpointBytesWritten, long lastCheckpointSequence,
                       long lastCheckpointMillis, long appendedSinceCheckpoint, DeadSpace deadSpace,
                       long hotChunkMovesTaken, long hotChunksMoved, long segmentsDoomedForMoves,
                       Compression compression) {
        this.compression = compression;
        this.entries = entries;
        this.queuedBytes = queuedBytes;
        this.alreadyCached = alreadyCached;
        this.queueFull = queueFull;
        this.notAdmitted = notAdmitted;
        this.dropped = dropped;
        this.offeredBeforeInvalidation = offeredBeforeInvalidation;
        this.appended = appended;
        this.reinserted = reinserted;
        this.segmentsSealed = segmentsSealed;
        this.flashBytesWritten = flashBytesWritten;
        this.segmentsReclaimed = segmentsReclaimed;
        this.failedSegmentWrites = failedSegmentWrites;
        this.writerErrors = writerErrors;
        this.memoryReads = memoryReads;
        this.flashBytesRead = flashBytesRead;
        this.pairedReads = pairedReads;
        this.readTimeouts = readTimeouts;
        this.busyMisses = busyMisses;
        this.readErrors = readErrors;
        this.refusedRecords = refusedRecords;
        this.damagedRecords = damagedRecords;
        this.invalidations = invalidations;
        this.checkpoints = checkpoints;
        this.failedCheckpoints = failedCheckpoints;
        this.deltaCheckpoints = deltaCheckpoints;
        this.checkpointBytesWritten = checkpointBytesWritten;
        this.lastCheckpointSequence = lastCheckpointSequence;
        this.lastCheckpointMillis = lastCheckpointMillis;
        this.appendedSinceCheckpoint = appendedSinceCheckpoint;
        this.deadSpace = Objects.requireNonNull(deadSpace, "deadSpace");
        this.hotChunkMovesTaken = hotChunkMovesTaken;
        this.hotChunksMoved = hotChunksMoved;
        this.segmentsDoomedForMoves = segmentsDoomedForMoves;
    }

    /** Chunks stored compressed on flash, and what that saved and cost. */
    public static final class Compression {
        private final long compressedChunks;
        private final long chunkBytes;
        private final long payloadBytes;
        private final long notWorthCompressing;
        private final long decompressed;
        private final long secondReads;

        /**
         * @param compressedChunks    chunks the writer stored compressed (hot chunk moves included)
         * @param chunkBytes          those chunks' bytes
         * @param payloadBytes        their compressed payloads' bytes
         * @param notWorthCompressing chunks to be compressed stored as they were: compressing saved less than an eighth
         * @param decompressed        chunks decompressed for flash hits (followers included)
         * @param secondReads         flash hits read twice because their record went on past the bytes expected
         */
        public Compression(long compressedChunks, long chunkBytes, long payloadBytes, long notWorthCompressing,
                           long decompressed, long secondReads) {
            this.compressedChunks = compressedChunks;
            this.chunkBytes = chunkBytes;
            this.payloadBytes = payloadBytes;
            this.notWorthCompressing = notWorthCompressing;
            this.decompressed = decompressed;
            this.secondReads = secondReads;
        }

        public long compressedChunks() {
            return compressedChunks;
        }

        public long chunkBytes() {
            return chunkBytes;
        }

        public long payloadBytes() {
            return payloadBytes;
        }

        public long notWorthCompressing() {
            return notWorthCompressing;
        }

        public long decompressed() {
            return decompressed;
        }

        public long secondReads() {
            return secondReads;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Compression)) {
                return false;
            }
            Compression other = (Compression) o;
            return compressedChunks == other.compressedChunks && chunkBytes == other.chunkBytes
                    && payloadBytes == other.payloadBytes && notWorthCompressing == other.notWorthCompressing
                    && decompressed == other.decompressed && secondReads == other.secondReads;
        }

        @Override
        public int hashCode() {
            return Objects.hash(compressedChunks, chunkBytes, payloadBytes, notWorthCompressing, decompressed,
                    secondReads);
        }

        @Override
        public String toString() {
            return "compressed=" + compressedChunks + " (" + chunkBytes + " B to " + payloadBytes + " B), notWorth="
                    + notWorthCompressing + ", decompressed=" + decompressed + ", secondReads=" + secondReads;
        }
    }

    /**
     * Flash held by records the index no longer points at (chunks replaced, invalidated, or of dropped
     * and compacted files), and the work that frees it.
     */
    public static final class DeadSpace {
        private final long deadRecords;
        private final int deadFilesPending;
        private final long deadFileChunksRemoved;
        private final long mostlyDeadSegmentsDoomed;

        /**
         * @param deadRecords              records in segments not yet reclaimed whose chunk is no longer served
         * @param deadFilesPending         dead files whose chunks are still being looked up in the index
         * @param deadFileChunksRemoved    chunks of dead files taken out of the index since start
         * @param mostlyDeadSegmentsDoomed segments chosen for reclaim before the order's turn because a
         *     quarter of their records or fewer were live
         */
        public DeadSpace(long deadRecords, int deadFilesPending, long deadFileChunksRemoved,
                         long mostlyDeadSegmentsDoomed) {
            this.deadRecords = deadRecords;
            this.deadFilesPending = deadFilesPending;
            this.deadFileChunksRemoved = deadFileChunksRemoved;
            this.mostlyDeadSegmentsDoomed = mostlyDeadSegmentsDoomed;
        }

        public long deadRecords() {
            return deadRecords;
        }

        public int deadFilesPending() {
            return deadFilesPending;
        }

        public long deadFileChunksRemoved() {
            return deadFileChunksRemoved;
        }

        public long mostlyDeadSegmentsDoomed() {
            return mostlyDeadSegmentsDoomed;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof DeadSpace)) {
                return false;
            }
            DeadSpace other = (DeadSpace) o;
            return deadRecords == other.deadRecords && deadFilesPending == other.deadFilesPending
                    && deadFileChunksRemoved == other.deadFileChunksRemoved
                    && mostlyDeadSegmentsDoomed == other.mostlyDeadSegmentsDoomed;
        }

        @Override
        public int hashCode() {
            return Objects.hash(deadRecords, deadFilesPending, deadFileChunksRemoved, mostlyDeadSegmentsDoomed);
        }

        @Override
        public String toString() {
            return "dead records=" + deadRecords + " (files being swept " + deadFilesPending + ", their chunks removed "
                    + deadFileChunksRemoved + ", mostly dead segments doomed " + mostlyDeadSegmentsDoomed + ")";
        }
    }

    public DeadSpace deadSpace() {
        return deadSpace;
    }

    public long hotChunkMovesTaken() {
        return hotChunkMovesTaken;
    }

    public long hotChunksMoved() {
        return hotChunksMoved;
    }

    public Compression compression() {
        return compression;
    }

    public long segmentsDoomedForMoves() {
        return segmentsDoomedForMoves;
    }

    public long entries() {
        return entries;
    }

    public long queuedBytes() {
        return queuedBytes;
    }

    public long alreadyCached() {
        return alreadyCached;
    }

    public long queueFull() {
        return queueFull;
    }

    public long notAdmitted() {
        return notAdmitted;
    }

    public long dropped() {
        return dropped;
    }

    public long offeredBeforeInvalidation() {
        return offeredBeforeInvalidation;
    }

    public long appended() {
        return appended;
    }

    public long reinserted() {
        return reinserted;
    }

    public long segmentsSealed() {
        return segmentsSealed;
    }

    public long flashBytesWritten() {
        return flashBytesWritten;
    }

    public long segmentsReclaimed() {
        return segmentsReclaimed;
    }

    public long failedSegmentWrites() {
        return failedSegmentWrites;
    }

    public long writerErrors() {
        return writerErrors;
    }

    public long memoryReads() {
        return memoryReads;
    }

    public long flashBytesRead() {
        return flashBytesRead;
    }

    public long pairedReads() {
        return pairedReads;
    }

    public long readTimeouts() {
        return readTimeouts;
    }

    public long busyMisses() {
        return busyMisses;
    }

    public long readErrors() {
        return readErrors;
    }

    public long refusedRecords() {
        return refusedRecords;
    }

    public long damagedRecords() {
        return damagedRecords;
    }

    public long invalidations() {
        return invalidations;
    }

    public long checkpoints() {
        return checkpoints;
    }

    public long failedCheckpoints() {
        return failedCheckpoints;
    }

    public long deltaCheckpoints() {
        return deltaCheckpoints;
    }

    public long checkpointBytesWritten() {
        return checkpointBytesWritten;
    }

    public long lastCheckpointSequence() {
        return lastCheckpointSequence;
    }

    public long lastCheckpointMillis() {
        return lastCheckpointMillis;
    }

    public long appendedSinceCheckpoint() {
        return appendedSinceCheckpoint;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof EngineStats)) {
            return false;
        }
        EngineStats other = (EngineStats) o;
        return entries == other.entries
                && queuedBytes == other.queuedBytes
                && alreadyCached == other.alreadyCached
                && queueFull == other.queueFull
                && notAdmitted == other.notAdmitted
                && dropped == other.dropped
                && offeredBeforeInvalidation == other.offeredBeforeInvalidation
                && appended == other.appended
                && reinserted == other.reinserted
                && segmentsSealed == other.segmentsSealed
                && flashBytesWritten == other.flashBytesWritten
                && segmentsReclaimed == other.segmentsReclaimed
                && failedSegmentWrites == other.failedSegmentWrites
                && writerErrors == other.writerErrors
                && memoryReads == other.memoryReads
                && flashBytesRead == other.flashBytesRead
                && pairedReads == other.pairedReads
                && readTimeouts == other.readTimeouts
                && busyMisses == other.busyMisses
                && readErrors == other.readErrors
                && refusedRecords == other.refusedRecords
                && damagedRecords == other.damagedRecords
                && invalidations == other.invalidations
                && checkpoints == other.checkpoints
                && failedCheckpoints == other.failedCheckpoints
                && deltaCheckpoints == other.deltaCheckpoints
                && checkpointBytesWritten == other.checkpointBytesWritten
                && lastCheckpointSequence == other.lastCheckpointSequence
                && lastCheckpointMillis == other.lastCheckpointMillis
                && appendedSinceCheckpoint == other.appendedSinceCheckpoint
                && deadSpace.equals(other.deadSpace)
                && hotChunkMovesTaken == other.hotChunkMovesTaken
                && hotChunksMoved == other.hotChunksMoved
                && segmentsDoomedForMoves == other.segmentsDoomedForMoves
                && compression.equals(other.compression);
    }

    @Override
    public int hashCode() {
        return Objects.hash(entries, queuedBytes, alreadyCached, queueFull, notAdmitted, dropped,
                offeredBeforeInvalidation, appended, reinserted, segmentsSealed, flashBytesWritten, segmentsReclaimed,
                failedSegmentWrites, writerErrors, memoryReads, flashBytesRead, pairedReads, readTimeouts, busyMisses,
                readErrors, refusedRecords, damagedRecords, invalidations, checkpoints, failedCheckpoints,
                deltaCheckpoints, checkpointBytesWritten,
                lastCheckpointSequence, lastCheckpointMillis, appendedSinceCheckpoint, deadSpace,
                hotChunkMovesTaken, hotChunksMoved, segmentsDoomedForMoves, compression);
    }

    @Override
    public String toString() {
        return "EngineStats[entries=" + entries + ", queuedBytes=" + queuedBytes + ", alreadyCached=" + alreadyCached
                + ", queueFull=" + queueFull + ", notAdmitted=" + notAdmitted + ", dropped=" + dropped
                + ", offeredBeforeInvalidation=" + offeredBeforeInvalidation + ", appended=" + appended
                + ", reinserted=" + reinserted + ", segmentsSealed=" + segmentsSealed
                + ", flashBytesWritten=" + flashBytesWritten + ", segmentsReclaimed=" + segmentsReclaimed
                + ", failedSegmentWrites=" + failedSegmentWrites + ", writerErrors=" + writerErrors
                + ", memoryReads=" + memoryReads + ", flashBytesRead=" + flashBytesRead + ", pairedReads=" + pairedReads
                + ", readTimeouts=" + readTimeouts + ", busyMisses=" + busyMisses + ", readErrors=" + readErrors
                + ", refusedRecords=" + refusedRecords + ", damagedRecords=" + damagedRecords
                + ", invalidations=" + invalidations + ", checkpoints=" + checkpoints
                + ", failedCheckpoints=" + failedCheckpoints + ", deltaCheckpoints=" + deltaCheckpoints
                + ", checkpointBytesWritten=" + checkpointBytesWritten + ", lastCheckpointSequence=" + lastCheckpointSequence
                + ", lastCheckpointMillis=" + lastCheckpointMillis
                + ", appendedSinceCheckpoint=" + appendedSinceCheckpoint + ", " + deadSpace
                + ", hotChunkMovesTaken=" + hotChunkMovesTaken + ", hotChunksMoved=" + hotChunksMoved
                + ", segmentsDoomedForMoves=" + segmentsDoomedForMoves + ", " + compression + "]";
    }
}

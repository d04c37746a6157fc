package io.flashchunk.cache.checkpoint;

import io.flashchunk.cache.format.DeltaHeader;
import java.util.function.LongSupplier;

/**
 * When the engine's writer writes a checkpoint of its own accord: every
 * {@code everySegments} segments sealed (what a crash can lose follows how much the cache changed),
 * and when chunks appended since the last durable checkpoint have waited {@code intervalMillis}
 * unnamed (a quiet cache loses at most that much time of chunks), provided, once the last checkpoint
 * was larger than a segment, their bytes outweigh it {@link #INTERVAL_PAYBACK} to 1; and while
 * segments doomed ahead of need wait for one to release them (a dropped table's space, the room made
 * for hot chunks moved off a loaded device), once
 * their bytes outweigh {@link #DOOMED_SPACE_PAYBACK} to 1 what a checkpoint costs ({@link #doomedSpaceCost}) and
 * {@link #DOOMED_SPACE_SPACING_MILLIS} (or the interval, if shorter) have passed since the last began and
 * since the last failure. Not by time, nor forced by need, within {@link #RETRY_MILLIS} of a failed
 * checkpoint (it would fail the same way).
 *
 * <p>Why the payback: a full checkpoint writes the whole index (12 bytes a chunk, 1.2 GB at 100 M
 * chunks), so in a large cache a full one every interval would write more than the chunks it names
 * (at 2 TB, 1.5 GB every 5 minutes however little was admitted); a delta after one is small, and then
 * the next waits only the interval, since its bytes are the last's. Waiting for 50 times its bytes keeps
 * checkpoints by time within 2% of the bytes written; with 16 KiB chunks that is about 3.7% of the
 * flash's chunks, with chunks under about 6 KiB more than the 10% after which one comes by count
 * anyway. A checkpoint no larger than a segment is always worth it: an interval's checkpoints then
 * write at most a segment (small caches, and the tests and ITs that restart them).
 *
 * <p>The writer thread alone calls everything but {@link #appendedSince}, which any thread may read.
 * Times are on the engine's clock (milliseconds); a clock set back counts as time passed.
 */
public final class CheckpointSchedule {
    /** A checkpoint by time waits until the chunk bytes appended are this many times the last one's. */
    public static final int INTERVAL_PAYBACK = 50;
    /** After a failed checkpoint, none by time or need for this long. */
    static final long RETRY_MILLIS = 1_000;
    /**
     * While doomed space waits, a checkpoint no sooner than this after the last began: the segments a
     * drop emptied are freed by the first, those it left mostly dead a reclaim batch each; hot chunk
     * moves keep room for this long ahead.
     */
    public static final long DOOMED_SPACE_SPACING_MILLIS = 10_000;
    /**
     * A checkpoint for doomed space waits until the segments it releases hold this many times what it
     * costs ({@link #doomedSpaceCost}): a segment is freed once a use, so what such checkpoints write
     * stays near a hundredth of the bytes appended, however often compactions leave segments mostly dead.
     */
    public static final int DOOMED_SPACE_PAYBACK = 100;

    private final int everySegments;
    private final long intervalMillis;
    private final long segmentBytes;
    private final LongSupplier clockMillis;
    /**
     * Segments sealed when the last checkpoint was tried by count, or made for any reason: the next by
     * count comes {@code everySegments} after whichever was later. A checkpoint that frees doomed
     * segments names everything before it as one by count does, so it restarts the count (else a
     * full cache wrote one of each kind per batch).
     */
    private int sealedAtLast;
    /** Chunks appended when the last durable checkpoint started. */
    private volatile long appendedAtLast;
    /** Chunk bytes appended when the last durable checkpoint started. */
    private long appendedBytesAtLast;
    /** Bytes the last durable checkpoint wrote (after a restart, what the recovered one held). */
    private long lastBytes;
    /**
     * No later than the first chunk appended since the last durable checkpoint: when that checkpoint
     * started, or the writer's last look with nothing unnamed.
     */
    private long unnamedSinceMillis;
    private long lastFailureMillis = Long.MIN_VALUE;
    /** When the last durable checkpoint started (at first, when the schedule was made). */
    private long lastStartedMillis;
    /** Bytes the last durable delta wrote (0 before the first). */
    private long lastDeltaBytes;
    /** Bytes the last durable full checkpoint wrote (at first, what the start recovered). */
    private long lastFullBytes;

    /**
     * @param recoveredBytes what the checkpoint the engine recovered from holds (0 if none): the first
     *                       checkpoint by time after a restart is weighed against it
     */
    public CheckpointSchedule(int everySegments, long intervalMillis, long segmentBytes, long recoveredBytes,
                       LongSupplier clockMillis) {
        if (everySegments < 1 || intervalMillis < 1 || segmentBytes < 1 || recoveredBytes < 0) {
            throw new IllegalArgumentException("segments between checkpoints, interval and segment bytes must be "
                    + "positive, recovered bytes not negative: " + everySegments + ", " + intervalMillis + ", "
                    + segmentBytes + ", " + recoveredBytes);
        }
        this.everySegments = everySegments;
        this.intervalMillis = intervalMillis;
        this.segmentBytes = segmentBytes;
        this.lastBytes = recoveredBytes;
        this.clockMillis = clockMillis;
        this.unnamedSinceMillis = clockMillis.getAsLong();
        this.lastStartedMillis = unnamedSinceMillis;
        this.lastFullBytes = recoveredBytes;
    }

    /** Whether {@code sealed} segments in all make a checkpoint due by count. */
    public boolean dueByCount(int sealed) {
        return sealed - sealedAtLast >= everySegments;
    }

    /** A checkpoint is about to be tried by count or asked for: the count restarts, whether it succeeds or not. */
    public void tried(int sealed) {
        sealedAtLast = sealed;
    }

    /**
     * Whether chunks appended since the last durable checkpoint ({@code appended} and their
     * {@code appendedBytes} in all, as the writer counts them) make one due by time.
     */
    public boolean dueByTime(long appended, long appendedBytes) {
        long now = clockMillis.getAsLong();
        if (appendedSince(appended) == 0) {
            unnamedSinceMillis = now;
            return false;
        }
        return now - unnamedSinceMillis >= intervalMillis && outweighLast(appendedBytes) && retryPassed();
    }

    private boolean outweighLast(long appendedBytes) {
        return lastBytes <= segmentBytes || appendedBytes - appendedBytesAtLast >= INTERVAL_PAYBACK * lastBytes;
    }

    /**
     * Whether a checkpoint is due for {@code segmentsWaiting} segments doomed ahead of need (mostly
     * dead, or to make room for hot chunk moves) that no durable checkpoint has released yet: their
     * bytes outweigh {@link #doomedSpaceCost}
     * {@link #DOOMED_SPACE_PAYBACK} to 1 (a node whose compactions kill files all the time does not
     * checkpoint every few seconds for a segment or two), and {@link #DOOMED_SPACE_SPACING_MILLIS}, or the
     * interval if shorter, have passed since that checkpoint began and since the last failure (a failing
     * device is not tried every second for it).
     */
    public boolean dueForDoomedSpace(long segmentsWaiting) {
        if (segmentsWaiting <= 0 || segmentsWaiting * segmentBytes < DOOMED_SPACE_PAYBACK * doomedSpaceCost()) {
            return false;
        }
        long now = clockMillis.getAsLong();
        long spacing = Math.min(DOOMED_SPACE_SPACING_MILLIS, intervalMillis);
        long since = now - lastStartedMillis;
        long sinceFailure = now - lastFailureMillis;
        return (since < 0 || since >= spacing)
                && (lastFailureMillis == Long.MIN_VALUE || sinceFailure < 0 || sinceFailure >= spacing);
    }

    /**
     * What a checkpoint for doomed space is taken to cost: a delta like the last one, and its share of the
     * full checkpoint that a chain of {@link DeltaHeader#MAX_DELTAS} deltas ends in. (The chain also
     * asks for a full one once a quarter of the segments changed; a freed segment is one of those
     * changes, and at any chunk of 4 KiB or more a full checkpoint's share of it is under a hundredth of it.)
     */
    long doomedSpaceCost() {
        return lastDeltaBytes + (lastFullBytes + DeltaHeader.MAX_DELTAS - 1) / DeltaHeader.MAX_DELTAS;
    }

    /**
     * Segments whose release outweighs a checkpoint for doomed space {@link #DOOMED_SPACE_PAYBACK} to 1
     * ({@link #doomedSpaceCost}): the fewest that make one due (at least one). At 100 M chunks of 16
     * KiB, a full checkpoint's share (1.2 GB / 1,024) asks for 7 segments of 16 MiB, 9 with a delta of
     * 256 KiB.
     */
    public int segmentsPayingBack() {
        double bytes = (double) DOOMED_SPACE_PAYBACK * doomedSpaceCost();
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.ceil(bytes / segmentBytes)));
    }

    /** Whether {@link #RETRY_MILLIS} have passed since the last failed checkpoint (or none failed). */
    public boolean retryPassed() {
        if (lastFailureMillis == Long.MIN_VALUE) {
            return true;
        }
        long since = clockMillis.getAsLong() - lastFailureMillis;
        return since < 0 || since >= RETRY_MILLIS;
    }

    /**
     * A checkpoint that started at {@code startedMillis}, when {@code sealed}, {@code appended} and
     * {@code appendedBytes} were the writer's counts, is durable and wrote {@code bytes}; a
     * {@code delta}, or a full one.
     */
    public void written(long startedMillis, int sealed, long appended, long appendedBytes, long bytes, boolean delta) {
        appendedAtLast = appended;
        appendedBytesAtLast = appendedBytes;
        lastBytes = bytes;
        sealedAtLast = Math.max(sealedAtLast, sealed);
        unnamedSinceMillis = startedMillis; // what is appended next is no older than this
        lastStartedMillis = Math.max(lastStartedMillis, startedMillis);
        if (delta) {
            lastDeltaBytes = bytes;
        } else {
            lastFullBytes = bytes;
        }
    }

    /** A checkpoint failed now. */
    public void failed() {
        lastFailureMillis = clockMillis.getAsLong();
    }

    /** Of {@code appended} chunks, those after the last durable checkpoint began (never below 0 when read racily). */
    public long appendedSince(long appended) {
        return Math.max(0, appended - appendedAtLast);
    }
}

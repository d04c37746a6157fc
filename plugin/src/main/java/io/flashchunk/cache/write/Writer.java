package io.flashchunk.cache.write;

import io.flashchunk.cache.checkpoint.CheckpointSchedule;
import io.flashchunk.cache.checkpoint.Checkpointer;
import io.flashchunk.cache.files.NamedFiles;
import java.io.IOException;
import io.flashchunk.cache.format.ChunkForm;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer's steps, on whatever thread calls them (the engine's one writer thread; a test's own):
 * an admitted chunk appended, and the checkpoints that appending needs or the schedule asks for.
 * Where a miss becomes a flash write is {@link SegmentWriter#append}; this class owns what happens
 * when it cannot: with no segment free, the appender dooms a batch of segments, and only a durable
 * checkpoint (one that no longer names them) lets them be rewritten, so a checkpoint is written and
 * the chunk appended again. Not thread-safe: one caller at a time. Counters are read from any thread.
 */
public final class Writer {
    private static final Logger LOG = LoggerFactory.getLogger(Writer.class);

    private final SegmentWriter segments;
    private final Checkpointer checkpointer;
    private final CheckpointSchedule schedule;
    private final NamedFiles files;
    private final LongSupplier clockMillis;
    private final LongAdder dropped = new LongAdder();
    private final AtomicLong checkpoints = new AtomicLong();
    private final AtomicLong failedCheckpoints = new AtomicLong();
    private final AtomicLong deltaCheckpoints = new AtomicLong();
    private final AtomicLong checkpointBytes = new AtomicLong();
    /**
     * {@code key}'s chunk changed in its file, or its record is damaged: it leaves the index and the
     * chunks kept for reinsertion ({@link SegmentWriter#invalidate}), and the checkpoints' deltas name
     * it, so that no recovery puts an older record of it back ({@link Checkpointer#forgotten}).
     */
    public void invalidate(long key) {
        segments.invalidate(key);
        checkpointer.forgotten(key, segments.nextRecordSequence(), segments.nextRecordSector());
    }

    /** What the last durable checkpoint wrote, or null before the first. */
    private volatile Checkpointer.Result lastCheckpoint;
    /** When the full checkpoint under way started, or null. */
    private Started underWay;
    /**
     * Segments doomed ahead of need (mostly dead, or room for moves) that the last durable checkpoint
     * had seen doomed (and so released).
     */
    private long doomedAheadNamed;
    /**
     * Index buckets a step of a full checkpoint copies: 32,768 slots (a page of the index), about a
     * tenth of a millisecond, with a 4 MiB write of the body every dozen steps or so.
     */
    static final long BUCKETS_PER_STEP = 4096;

    /**
     * @param files       the files a checkpoint names (their table is written with the index)
     * @param clockMillis the time checkpoints start, as the schedule counts it
     */
    public Writer(SegmentWriter segments, Checkpointer checkpointer, CheckpointSchedule schedule, NamedFiles files,
                  LongSupplier clockMillis) {
        this.segments = segments;
        this.checkpointer = checkpointer;
        this.schedule = schedule;
        this.files = files;
        this.clockMillis = clockMillis;
        // From the start: after a restart the first checkpoint's cost is the recovered one's.
        segments.roomForMovesAtLeast(schedule.segmentsPayingBack());
    }

    /**
     * Appends the chunk of {@code key}; returns whether it is cached. When no segment can be opened
     * until a checkpoint releases doomed or retired ones, writes that checkpoint and tries once more;
     * after a failed checkpoint, not again until the schedule's retry time has passed (it would fail
     * the same way on every chunk). A chunk not cached is counted as dropped.
     */
    public boolean append(long key, ByteBuffer chunk) {
        return append(key, chunk, ChunkForm.RAW);
    }

    /** As {@link #append(long, ByteBuffer)} for a chunk whose payload in {@code form} is {@code chunk}. */
    public boolean append(long key, ByteBuffer chunk, ChunkForm form) {
        if (segments.append(key, chunk, form)) {
            return true;
        }
        if (segments.waitsForCheckpoint() && schedule.retryPassed() && checkpoint("a doomed segment waits")
                && segments.append(key, chunk, form)) {
            return true;
        }
        dropped.increment();
        return false;
    }

    /**
     * Writes again a hot chunk a hit read from the record at {@code from} (in use {@code sequence} of
     * its segment), into a space loaded less ({@link SegmentWriter#move}); returns whether it did. A
     * move not made is not a dropped chunk: the chunk stays cached where it was.
     */
    public boolean move(long key, ByteBuffer chunk, ChunkForm form, long from, long sequence) {
        return segments.move(key, chunk, form, from, sequence);
    }

    /**
     * After each step of the writer thread: a checkpoint when {@code asked} (written whole, after any
     * under way); else a step of the full checkpoint under way, if any (its end started once the copy
     * is done, and taken once it ran); else, or once that ended, a checkpoint when the schedule says
     * one is due by segments written, by time, or for segments doomed ahead of need (mostly dead, or
     * room for hot chunk moves) that no durable checkpoint has released yet, once they outweigh its
     * cost (a delta is written whole, a full one starts, to go on in steps).
     */
    public void checkpointIfDue(boolean asked) {
        if (asked) {
            schedule.tried(segments.sealed());
            checkpoint("asked for");
            return;
        }
        if (checkpointer.started()) {
            checkpointStep();
            if (checkpointer.started()) {
                return;
            }
            // Ended at this step: one due meanwhile starts now.
        }
        if (schedule.dueByCount(segments.sealed())) {
            schedule.tried(segments.sealed());
            start("segments written");
        } else if (schedule.dueByTime(segments.appended(), segments.appendedBytes())) {
            schedule.tried(segments.sealed());
            start("interval");
        } else if (schedule.dueForDoomedSpace(segments.doomedAhead() - doomedAheadNamed)) {
            // A dropped table's segments, and the room made for hot chunk moves, free only once a
            // checkpoint no longer names them: soon, not at the next by count or time (minutes on a
            // quiet node), nor at need.
            start("space doomed ahead");
        }
    }

    /** Whether a full checkpoint is under way: the writer should come back for its next step soon. */
    public boolean checkpointUnderWay() {
        return checkpointer.started();
    }

    /**
     * Whether the full checkpoint under way waits for its own writes (its body's, or its end's): the
     * writer's next step would do nothing, so it may wait a little for its queue rather than spin.
     */
    public boolean checkpointWaitsForWrites() {
        try {
            return checkpointer.waitsForWrites(BUCKETS_PER_STEP);
        } catch (IOException e) {
            return false; // the next step meets the failure and gives the checkpoint up
        }
    }

    /**
     * Writes what was appended so far to flash and a checkpoint naming it, finishing any full one under
     * way first; returns whether the checkpoint is durable. A failure is counted and logged, never thrown.
     */
    public boolean checkpoint(String why) {
        return checkpoint(why, false);
    }

    /** As {@link #checkpoint(String)}, a full checkpoint when {@code full} ({@link Checkpointer#checkpoint(NamedFiles, boolean)}). */
    public boolean checkpoint(String why, boolean full) {
        if (checkpointer.ending()) {
            // The end of the full checkpoint under way is taken and counted first; the one asked for
            // then names what came since (a full one, if that end failed).
            Started started = underWay != null ? underWay : new Started("full");
            underWay = null;
            try {
                written(checkpointer.completeEnd(), started);
            } catch (IOException | RuntimeException e) {
                failed(started.why, e);
            }
        }
        underWay = null; // a full checkpoint still being copied is finished first
        try {
            segments.persist();
            Started now = new Started(why);
            written(checkpointer.checkpoint(files, full), now);
            return true;
        } catch (IOException | RuntimeException e) {
            failed(why, e);
            return false;
        }
    }

    /** A checkpoint the writer goes on around: a delta written now, or a full one started. */
    private void start(String why) {
        try {
            segments.persist();
            Started now = new Started(why);
            Checkpointer.Result result = checkpointer.start(files);
            if (result != null) {
                written(result, now);
            } else {
                underWay = now;
                checkpointStep(); // the first step now: an index of one step's buckets is done whole
            }
        } catch (IOException | RuntimeException e) {
            failed(why, e);
        }
    }

    /**
     * The next step of the full checkpoint under way; once copied, its end (a delta of what changed
     * meanwhile, then its header) started on a thread of its own, and taken at a later turn once done.
     */
    private void checkpointStep() {
        Started started = underWay != null ? underWay : new Started("full");
        try {
            if (checkpointer.ending()) {
                if (checkpointer.ended()) {
                    underWay = null;
                    written(checkpointer.completeEnd(), started);
                }
            } else if (checkpointer.step(BUCKETS_PER_STEP)) {
                segments.persist();
                Checkpointer.Result now = checkpointer.endInBackground(files);
                if (now != null) {
                    underWay = null;
                    written(now, started);
                }
            }
        } catch (IOException | RuntimeException e) {
            // Whatever failed, none is left under way: the writer's loop polls without pause for its steps.
            checkpointer.abandon();
            underWay = null;
            failed(started.why, e);
        }
    }

    private void written(Checkpointer.Result result, Started started) {
        lastCheckpoint = result;
        schedule.written(started.millis, started.sealed, started.appended, started.appendedBytes, result.bytes(),
                result.deltaSpaces() > 0);
        doomedAheadNamed = Math.max(doomedAheadNamed, started.doomedAhead);
        segments.roomForMovesAtLeast(schedule.segmentsPayingBack());
        checkpoints.incrementAndGet();
        deltaCheckpoints.addAndGet(result.deltaSpaces() > 0 ? 1 : 0);
        checkpointBytes.addAndGet(result.bytes());
    }

    private void failed(String why, Exception e) {
        failedCheckpoints.incrementAndGet();
        schedule.failed();
        LOG.warn("flash cache: checkpoint ({}) failed: {}", why, e.toString());
    }

    /** The appender's counts when a checkpoint started, which the schedule weighs its next one from. */
    private final class Started {
        final String why;
        final int sealed = segments.sealed();
        final long appended = segments.appended();
        final long appendedBytes = segments.appendedBytes();
        final long doomedAhead = segments.doomedAhead();
        final long millis = clockMillis.getAsLong();

        Started(String why) {
            this.why = why;
        }
    }

    /** The appender this writer drives. */
    public SegmentWriter segments() {
        return segments;
    }

    /** What the last durable checkpoint wrote (its sequence, entries, bytes), or null before the first. */
    public Checkpointer.Result lastCheckpoint() {
        return lastCheckpoint;
    }

    /** Admitted chunks not cached: no segment could be opened, even after a checkpoint. */
    public long dropped() {
        return dropped.sum();
    }

    /** Durable checkpoints written. */
    public long checkpoints() {
        return checkpoints.get();
    }

    /** Checkpoints that failed. */
    public long failedCheckpoints() {
        return failedCheckpoints.get();
    }

    /** Durable checkpoints that were deltas. */
    public long deltaCheckpoints() {
        return deltaCheckpoints.get();
    }

    /** Body bytes the durable checkpoints wrote. */
    public long checkpointBytesWritten() {
        return checkpointBytes.get();
    }

    /** Chunks appended since the last durable checkpoint (what a crash now would lose from the index). */
    public long appendedSince(long appended) {
        return schedule.appendedSince(appended);
    }
}

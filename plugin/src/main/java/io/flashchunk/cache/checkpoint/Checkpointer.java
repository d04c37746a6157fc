package io.flashchunk.cache.checkpoint;

import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.files.FileTableCodec;
import io.flashchunk.cache.files.NamedFiles;
import io.flashchunk.cache.format.CheckpointAreas;
import io.flashchunk.cache.format.CheckpointHeader;
import io.flashchunk.cache.format.DeltaHeader;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.format.SegmentSummary;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.space.AddressSpaces;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;

/**
 * Writes checkpoints of the engine: per address space either a full checkpoint, into the older of
 * its two areas (the segments it names, the file table, and the index's slots that point into those
 * segments, 12 bytes a chunk, streamed, so of any size), or a delta after the full one this run last
 * wrote there, or the one recovery read (the segments whose use changed since, 20 bytes each, the
 * chunks invalidated since, and the file table; recovery reads the changed segments' chunks from their
 * summaries). The order makes a crash at any moment safe:
 * <ol>
 *   <li>{@link SegmentTable#startCheckpoint}: the durable segments are named, and from now on a
 *       segment reclaimed waits for a checkpoint after this one;</li>
 *   <li>every space's body, then its header, each made durable ({@link BodyWriter}); a delta goes
 *       after the last one durable, so it never overwrites what recovery may need;</li>
 *   <li>only once every space's is durable, {@link SegmentTable#checkpointDurable} frees the segments
 *       retired before step 1 and releases those doomed before it.</li>
 * </ol>
 * Every space writes a full checkpoint when this run has no full one to go on from (none written, and
 * none recovered that allows it), after any failed checkpoint, and when any space needs one: more of its segments changed since its last full one
 * than a delta names ({@link DeltaHeader#maxChanges}: recovery reads one summary per changed
 * segment), too many chunks invalidated since, {@link DeltaHeader#MAX_DELTAS} deltas, a segment
 * written in part whose records cannot be listed, or a delta that would not fit the area.
 *
 * <p>A full checkpoint copies the index by a {@link ChunkIndex.Pass} on the writer's thread, at once
 * ({@link #checkpoint}) or in steps between the writer's appends ({@link #start}, {@link #step},
 * {@link #endInBackground} or {@link #finish}): each entry once, so the header says exact and recovery
 * puts it back without a duplicate check. A slot pointing into a segment not named (appended since
 * the start) is left out; what changed during steps goes into a delta written before the full
 * checkpoint's header. In steps, the writer never waits for the checkpoint's writes: a step copies
 * nothing while the body's writes are behind ({@link #waitsForWrites}), and the end (the body made
 * durable, the delta, the header) runs on a thread of its own while the writer goes on, the result
 * taken by {@link #completeEnd}. A failed checkpoint spends its sequence (a space may hold it
 * durably) and frees nothing. One checkpoint at a time, driven from the writer's thread.
 */
public final class Checkpointer {
    private final SegmentTable table;
    private final ChunkIndex index;
    private final AddressSpaces spaces;
    private final UUID instance;
    private final LongSupplier clockMillis;
    /** Sequence of the checkpoint in each space's two areas, 0 when none is valid. */
    private final long[][] areaSequences;
    private long spentSequence;
    /** Per space, the full checkpoint this run wrote last and the deltas after it; null: the next is full. */
    private final Chain[] chains;
    /** The chunks invalidated since the last full checkpoints, which every space's deltas name. */
    private final Forgotten forgotten = new Forgotten();
    /** What this run's first checkpoint by time is weighed against ({@link #recoveredBytes()}). */
    private long recoveredBytes;
    /** The full checkpoint {@link #start}ed and not yet finished, or null. */
    private FullCopy inSteps;
    /** The end of {@link #inSteps} running on its own thread, or null. */
    private Ending ending;

    /**
     * Past this many invalidated chunks since the last full checkpoints, and past a quarter of the
     * entries they hold, the next checkpoint is a full one.
     */
    static final int MIN_FORGOTTEN_FOR_FULL = 1024;

    /** Entries a full checkpoint's body gathers before writing them on: 48 KiB. */
    private static final int ENTRIES_STAGED = 4096;

    /** What one checkpoint did; {@code freedSegments}: retired segments freed and doomed ones released. */
    public static final class Result {
        private final long sequence;
        private final long entries;
        private final long refused;
        private final long bytes;
        private final int freedSegments;
        private final long startedMillis;
        private final int deltaSpaces;
        private final long changedSegments;

        /**
         * @param entries         index entries written (by the spaces that wrote a full checkpoint)
         * @param startedMillis   when it started, as its headers say (the engine's clock)
         * @param deltaSpaces     spaces that wrote a delta rather than a full checkpoint
         * @param changedSegments segments those deltas name as changed since their full checkpoint
         */
        public Result(long sequence, long entries, long refused, long bytes, int freedSegments, long startedMillis,
                      int deltaSpaces, long changedSegments) {
            this.deltaSpaces = deltaSpaces;
            this.changedSegments = changedSegments;
            this.sequence = sequence;
            this.startedMillis = startedMillis;
            this.entries = entries;
            this.refused = refused;
            this.bytes = bytes;
            this.freedSegments = freedSegments;
        }

        public long sequence() {
            return sequence;
        }

        public long entries() {
            return entries;
        }

        public long refused() {
            return refused;
        }

        public long bytes() {
            return bytes;
        }

        public int freedSegments() {
            return freedSegments;
        }

        public long startedMillis() {
            return startedMillis;
        }

        /** Spaces that wrote a delta; 0 when every space wrote a full checkpoint. */
        public int deltaSpaces() {
            return deltaSpaces;
        }

        /** Segments the deltas name as changed since their spaces' full checkpoints. */
        public long changedSegments() {
            return changedSegments;
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof Result)) {
                return false;
            }
            Result other = (Result) o;
            return sequence == other.sequence
                    && entries == other.entries
                    && refused == other.refused
                    && bytes == other.bytes
                    && freedSegments == other.freedSegments
                    && startedMillis == other.startedMillis
                    && deltaSpaces == other.deltaSpaces
                    && changedSegments == other.changedSegments;
        }

        @Override
        public int hashCode() {
            return Objects.hash(sequence, entries, refused, bytes, freedSegments, startedMillis, deltaSpaces,
                    changedSegments);
        }

        @Override
        public String toString() {
            return "Result[sequence=" + sequence + ", entries=" + entries + ", refused=" + refused + ", bytes=" + bytes
                    + ", freedSegments=" + freedSegments + ", startedMillis=" + startedMillis + ", deltaSpaces="
                    + deltaSpaces + ", changedSegments=" + changedSegments + "]";
        }
    }

    /**
     * @param areaSequences per space, the sequence each area held at start (0 = none), as recovery found them
     * @param highestSeen   the highest checkpoint sequence any header showed, valid or not: never reused
     */
    public Checkpointer(SegmentTable table, ChunkIndex index, AddressSpaces spaces, UUID instance,
                        long[][] areaSequences, long highestSeen, LongSupplier clockMillis) {
        int count = table.spaces();
        if (spaces.count() != count || areaSequences.length != count) {
            throw new IllegalArgumentException("one address space and one pair of area sequences per space");
        }
        this.table = table;
        this.index = index;
        this.spaces = spaces;
        this.instance = instance;
        this.clockMillis = clockMillis;
        this.chains = new Chain[count];
        this.areaSequences = new long[count][];
        for (int s = 0; s < count; s++) {
            this.areaSequences[s] = areaSequences[s].clone();
            spentSequence = Math.max(spentSequence, Math.max(areaSequences[s][0], areaSequences[s][1]));
        }
        // Above every header seen and above the clock, as segment sequences: a header that could not be
        // read at start (and so is not counted) must never tie with or outrank a later checkpoint.
        spentSequence = Math.max(spentSequence, Math.max(highestSeen, clockMillis.getAsLong() << 20));
    }

    /**
     * A checkpointer for a run that {@code recovered} started: when every space came back from one
     * full checkpoint ({@link Recovery.Outcome#continuesChain()}), its first checkpoint is a delta
     * after the last one recovery read, naming what those named and what this run changed, so a
     * restart does not cost a full checkpoint; otherwise (or when a chain has no room for another
     * delta as large as its last, or has the most deltas a chain may) its first is a full one.
     */
    public Checkpointer(SegmentTable table, ChunkIndex index, AddressSpaces spaces, UUID instance,
                        Recovery.Outcome recovered, LongSupplier clockMillis) {
        this(table, index, spaces, instance, recovered.areaSequences(), recovered.highestSequenceSeen(), clockMillis);
        recoveredBytes = recovered.restoredEntries() * CheckpointHeader.ENTRY_BYTES;
        RecoveredChain[] recoveredChains = recovered.chains();
        if (recoveredChains == null) {
            return;
        }
        long lastDeltas = 0;
        long baseEntries = 0;
        Chain[] continued = new Chain[chains.length];
        for (int s = 0; s < chains.length; s++) {
            RecoveredChain chain = recoveredChains[s];
            if (chain.baseSequences.length != table.segmentsIn(s)) {
                throw new IllegalArgumentException("space " + s + " recovered " + chain.baseSequences.length
                        + " segments, the table has " + table.segmentsIn(s));
            }
            continued[s] = new Chain(chain, s);
            if (continued[s].deltas >= DeltaHeader.MAX_DELTAS
                    || continued[s].nextBlock + 1 + blocks(chain.lastDeltaBytes) > continued[s].endBlock) {
                return; // the next checkpoint would be a full one anyway: weighed as one
            }
            lastDeltas += chain.lastDeltaBytes;
            baseEntries += chain.baseEntries;
        }
        long[] carried = recovered.forgotten();
        for (int i = 0; i < carried.length; i += 3) {
            forgotten.add(carried[i], carried[i + 1], (int) carried[i + 2]);
        }
        if (!forgotten.fitsDelta(baseEntries)) {
            forgotten.dropFirst(forgotten.size, 0, Long.MAX_VALUE);
            return;
        }
        System.arraycopy(continued, 0, chains, 0, chains.length);
        recoveredBytes = lastDeltas;
    }

    /**
     * The bytes this run's first checkpoint by time is weighed against ({@link CheckpointSchedule}):
     * when the run goes on from the recovered chain, the last delta recovery read (the next one is a
     * delta too, as large or a little larger); else the entries restored, 12 bytes each, as the full
     * checkpoint that comes first writes them; 0 for a run that recovered nothing.
     */
    public long recoveredBytes() {
        return recoveredBytes;
    }

    /**
     * Writes one checkpoint naming the segments durable now, their chunks, and {@code files} as they
     * are after the segments were named; throws when any space's write failed, after which the
     * previous checkpoint still holds where this one is not durable.
     */
    public synchronized Result checkpoint(NamedFiles namedFiles) throws IOException {
        return checkpoint(namedFiles, false);
    }

    /**
     * As {@link #checkpoint(NamedFiles)}; when {@code full}, every space writes a full checkpoint
     * whatever a delta would do (before going back to a release that reads no delta, say). A full
     * checkpoint started in steps ({@link #start}) and not finished is finished first.
     */
    public synchronized Result checkpoint(NamedFiles namedFiles, boolean full) throws IOException {
        if (ending != null) {
            // Its end started earlier: it names less than this checkpoint must, so one follows.
            completeEnd();
        } else if (inSteps != null) {
            Result finished = finish(namedFiles);
            if (!full) {
                return finished;
            }
        }
        Start started = new Start(namedFiles, full);
        if (started.deltas != null) {
            return writeDeltas(started);
        }
        // The copy at once, and nothing else changes the index meanwhile: the header follows the body.
        FullCopy copy = new FullCopy(started);
        try {
            copy.step(Long.MAX_VALUE);
            copy.flushBodies();
            copy.writeHeaders();
        } catch (IOException | RuntimeException e) {
            copy.giveUp(); // the index's pass never stays open, nor a body's write under way
            throw e;
        }
        copy.recordAreas();
        forgotten.dropFirst(started.forgottenBefore, started.lostBefore, started.named.unwrittenFrom());
        System.arraycopy(copy.chains(), 0, chains, 0, chains.length);
        int freed = table.checkpointDurable(started.named.epoch());
        return new Result(started.sequence, copy.entries(), copy.refused(), copy.bytes(), freed, started.millis, 0, 0);
    }

    /**
     * Starts a checkpoint that the writer goes on around: a delta (a few blocks) is written whole now
     * and returned; a full checkpoint only starts, returning null: its copy of the index goes on in
     * {@link #step}s between the writer's changes, and {@link #finish} writes what changed meanwhile
     * as a delta after it, then its header. So a full checkpoint of any size holds the writer up for one
     * step at a time, never for the whole copy. Writer thread only.
     */
    public synchronized Result start(NamedFiles namedFiles) throws IOException {
        return start(namedFiles, false);
    }

    /** As {@link #start(NamedFiles)}; when {@code full}, a full checkpoint whatever a delta would do. */
    public synchronized Result start(NamedFiles namedFiles, boolean full) throws IOException {
        if (inSteps != null) {
            throw new IllegalStateException("a full checkpoint is already under way");
        }
        Start started = new Start(namedFiles, full);
        if (started.deltas != null) {
            return writeDeltas(started);
        }
        inSteps = new FullCopy(started);
        return null;
    }

    /**
     * Gives up the full checkpoint under way, if any (the writer could not get to its end: the next
     * checkpoint is a full one, and the previous one still holds).
     */
    public synchronized void abandon() {
        if (ending != null) {
            ending.awaitQuietly(); // no write of it may land after the next checkpoint's in the same area
            ending = null;
        }
        if (inSteps != null) {
            inSteps.giveUp();
            inSteps = null;
        }
    }

    /** Whether a full checkpoint {@link #start}ed is under way: in its steps, or its end running. */
    public synchronized boolean started() {
        return inSteps != null;
    }

    /**
     * Whether the full checkpoint under way can make no progress now, its writes being behind: its
     * end is running, or its body has no room for a step of {@code buckets} without waiting for a
     * write (throws that write's failure). The writer
     * then waits a little for its queue rather than spin.
     */
    public synchronized boolean waitsForWrites(long buckets) throws IOException {
        if (ending != null) {
            return !ending.done.isDone();
        }
        return inSteps != null && !inSteps.copied && !inSteps.roomFor(buckets);
    }

    /** Whether the end of the full checkpoint under way was started ({@link #endInBackground}) and has not been taken. */
    public synchronized boolean ending() {
        return ending != null;
    }

    /** Whether the end of the full checkpoint under way has run, well or not: {@link #completeEnd} returns at once. */
    public synchronized boolean ended() {
        return ending != null && ending.done.isDone();
    }

    /**
     * Waits at most {@code timeout} for the end under way to have run ({@link #ended}), without taking
     * it; true when it has, or when none runs. Any thread.
     */
    public boolean awaitEnded(long timeout, TimeUnit unit) throws InterruptedException {
        Ending end;
        synchronized (this) {
            end = ending;
        }
        if (end == null) {
            return true;
        }
        try {
            end.done.get(timeout, unit);
        } catch (ExecutionException e) {
            // ended, not well: completeEnd throws it
        } catch (TimeoutException e) {
            return false;
        }
        return true;
    }

    /**
     * Copies the next {@code buckets} buckets of the index into the full checkpoint under way (writer
     * thread only); returns whether the copy is done, so that {@link #finish} writes no more of it. A
     * failure gives the checkpoint up (the next one is full again) and throws.
     */
    public synchronized boolean step(long buckets) throws IOException {
        if (inSteps == null || ending != null) {
            throw new IllegalStateException(inSteps == null ? "no full checkpoint is under way"
                    : "the full checkpoint under way is ending");
        }
        try {
            if (!inSteps.copied && !inSteps.roomFor(buckets)) {
                return false; // its body's writes are behind: the writer goes on, and steps again later
            }
            return inSteps.step(buckets);
        } catch (IOException | RuntimeException e) {
            inSteps.giveUp();
            inSteps = null;
            throw e;
        }
    }

    /**
     * Finishes the full checkpoint under way (writer thread only, after the appender put every chunk so
     * far on flash, as for any checkpoint) and waits for it: {@link #endInBackground}, then
     * {@link #completeEnd}. Returns the two as one result, or throws (the next checkpoint is full again).
     */
    public synchronized Result finish(NamedFiles namedFiles) throws IOException {
        Result now = ending != null ? null : endInBackground(namedFiles);
        return now != null ? now : completeEnd();
    }

    /**
     * Ends the full checkpoint under way (writer thread only, after the appender put every chunk so far
     * on flash, as for any checkpoint): the rest of its copy, then, on a thread of its own, its body
     * made durable, a delta after it naming what changed since it started (segments used, chunks
     * invalidated), then its header. Only the header makes the two visible, so recovery never reads
     * the copy without what changed during it. Returns null while that runs (the writer goes on, and
     * takes the result with {@link #completeEnd} once {@link #ended}); when no delta can name what
     * changed (too much), writes a full checkpoint at once instead and returns it. Throws when it
     * cannot start (the next checkpoint is full again).
     */
    public synchronized Result endInBackground(NamedFiles namedFiles) throws IOException {
        FullCopy copy = inSteps;
        if (copy == null || ending != null) {
            throw new IllegalStateException(copy == null ? "no full checkpoint is under way"
                    : "the full checkpoint under way is ending already");
        }
        Start since;
        try {
            copy.step(Long.MAX_VALUE);
            // From here, the log holds just what was invalidated while the copy was made.
            forgotten.dropFirst(copy.started.forgottenBefore, copy.started.lostBefore,
                    copy.started.named.unwrittenFrom());
            since = new Start(namedFiles, copy.chains());
        } catch (IOException | RuntimeException e) {
            abandon();
            throw e;
        }
        if (since.deltas == null) {
            abandon();
            return checkpoint(namedFiles, true);
        }
        Ending end = new Ending(copy, since, Arrays.copyOf(forgotten.entries, 3 * since.forgottenBefore));
        try {
            end.start();
        } catch (OutOfMemoryError | RuntimeException e) { // no thread to be had
            abandon();
            throw new IOException("a full checkpoint's end could not start a thread: " + e, e);
        }
        ending = end;
        return null;
    }

    /**
     * Takes the end of the full checkpoint under way, waiting for it if it still runs: once its
     * header is durable, the segments doomed and retired before it are released, and its result is
     * returned; a failure is thrown, and the next checkpoint is full again.
     */
    public synchronized Result completeEnd() throws IOException {
        Ending end = ending;
        if (end == null) {
            throw new IllegalStateException("no full checkpoint's end is running");
        }
        try {
            end.await();
        } catch (IOException | RuntimeException e) {
            abandon();
            throw e;
        }
        ending = null;
        inSteps = null;
        FullCopy copy = end.copy;
        Start since = end.since;
        copy.recordAreas();
        int count = spaces.count();
        long changed = 0;
        for (int s = 0; s < count; s++) {
            areaSequences[s][since.base[s].area] = since.sequence;
            changed += since.deltas[s].changed.length;
        }
        System.arraycopy(since.base, 0, chains, 0, count);
        int freed = table.checkpointDurable(since.named.epoch());
        return new Result(since.sequence, copy.entries(), copy.refused(), copy.bytes() + end.deltaBytes, freed,
                copy.started.millis, 0, changed);
    }

    /**
     * The writes of a full checkpoint's end, on a thread of their own: each space's body made durable,
     * its delta of what changed during the copy, then its header. The writer thread hands the copy over
     * when the thread starts and takes it back by {@link #done}; nothing else touches them meanwhile.
     * Invalidations the writer logs meanwhile go into the next checkpoint: the delta names a copy.
     */
    private final class Ending {
        final FullCopy copy;
        final Start since;
        final long[] forgottenEntries;
        final CompletableFuture<Void> done = new CompletableFuture<>();
        long deltaBytes;

        Ending(FullCopy copy, Start since, long[] forgottenEntries) {
            this.copy = copy;
            this.since = since;
            this.forgottenEntries = forgottenEntries;
        }

        void start() {
            Thread thread = new Thread(() -> {
                try {
                    write();
                    done.complete(null);
                } catch (Throwable t) {
                    done.completeExceptionally(t);
                }
            }, "flashchunk-checkpoint-end");
            thread.setDaemon(true);
            thread.start();
        }

        private void write() throws IOException {
            copy.flushBodies();
            for (int s = 0; s < spaces.count(); s++) {
                deltaBytes += since.base[s].writeDelta(since.deltas[s], forgottenEntries, since.forgottenBefore,
                        since.named, since.files, since.sequence, since.millis, since.nextFileId,
                        since.nextSegmentSequence);
            }
            copy.writeHeaders();
        }

        /** Waits for the writes (each bounded by the device timeout); rethrows their failure. */
        void await() throws IOException {
            try {
                done.join();
            } catch (CompletionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof IOException) {
                    throw (IOException) cause;
                }
                if (cause instanceof RuntimeException) {
                    throw (RuntimeException) cause;
                }
                throw new IOException("a full checkpoint's end failed: " + cause, cause);
            }
        }

        void awaitQuietly() {
            try {
                done.join();
            } catch (CompletionException e) {
                // given up: the next checkpoint is a full one
            }
        }
    }

    /** Writes the deltas {@code started} planned, one per space, after each space's chain. */
    private Result writeDeltas(Start started) throws IOException {
        int count = spaces.count();
        Chain[] previous = chains.clone();
        // Any failure from here on: the next checkpoint of every space is a full one.
        Arrays.fill(chains, null);
        long bytes = 0;
        long changed = 0;
        for (int s = 0; s < count; s++) {
            Chain chain = previous[s];
            bytes += chain.writeDelta(started.deltas[s], forgotten.entries, started.forgottenBefore, started.named,
                    started.files,
                    started.sequence, started.millis, started.nextFileId, started.nextSegmentSequence);
            areaSequences[s][chain.area] = started.sequence;
            changed += started.deltas[s].changed.length;
        }
        System.arraycopy(previous, 0, chains, 0, count);
        int freed = table.checkpointDurable(started.named.epoch());
        return new Result(started.sequence, 0, 0, bytes, freed, started.millis, count, changed);
    }

    /**
     * What a checkpoint starts from: the segments it names and their epoch, the file table read after
     * naming them (a chunk in a named segment was appended earlier, its file registered earlier), its
     * sequence, and per space the delta it writes after the space's chain, or none (every space then
     * writes a full checkpoint).
     */
    private final class Start {
        final SegmentTable.Named named;
        final long millis;
        final FileTableCodec.Encoded files;
        final int nextFileId;
        final long sequence;
        final long nextSegmentSequence;
        final int forgottenBefore;
        final long lostBefore;
        /** The chains the deltas go after. */
        final Chain[] base;
        /** Per space, what its delta names; null: every space writes a full checkpoint. */
        final DeltaPlan[] deltas;

        /** A checkpoint after this run's chains: deltas when every space can write one and {@code full} is not asked. */
        Start(NamedFiles namedFiles, boolean full) {
            this(namedFiles, full ? null : chains.clone());
        }

        /** A checkpoint after {@code base}: deltas when every space can write one, else (or with no base) full. */
        Start(NamedFiles namedFiles, Chain[] base) {
            named = table.startCheckpoint();
            millis = clockMillis.getAsLong();
            files = namedFiles.table();
            nextFileId = namedFiles.nextFileId();
            sequence = spentSequence = Math.addExact(spentSequence, 1);
            nextSegmentSequence = table.nextSequence();
            forgottenBefore = forgotten.size;
            lostBefore = forgotten.lost;
            this.base = base;
            deltas = base == null ? null : plan(base);
        }

        private DeltaPlan[] plan(Chain[] base) {
            int count = spaces.count();
            long baseEntries = 0;
            for (int s = 0; s < count; s++) {
                if (base[s] == null) {
                    return null;
                }
                baseEntries += base[s].baseEntries;
            }
            if (!forgotten.fitsDelta(baseEntries)) {
                return null;
            }
            // Every space a delta, or every space a full checkpoint: the spaces' full checkpoints are then
            // always one copy of the index, which recovery puts back whole before any summary.
            DeltaPlan[] plans = new DeltaPlan[count];
            for (int s = 0; s < count; s++) {
                plans[s] = base[s].changes(named, files, forgottenBefore);
                if (plans[s] == null) {
                    return null;
                }
            }
            return plans;
        }
    }

    /**
     * A full checkpoint of every space, from its start to its header: the older area of each space
     * taken (its header wiped), the segments named and the file table written, then the index copied
     * in steps ({@link ChunkIndex.Pass}: each entry once, whatever the writer does between steps).
     */
    private final class FullCopy {
        final Start started;
        final FullBody[] fulls;
        final int[] area;
        final ChunkIndex.Pass pass;
        boolean copied;

        FullCopy(Start started) throws IOException {
            this.started = started;
            int count = spaces.count();
            // Any failure from here on: the next checkpoint of every space is a full one.
            Arrays.fill(chains, null);
            fulls = new FullBody[count];
            area = new int[count];
            try {
                for (int s = 0; s < count; s++) {
                    // The older area: the newest durable checkpoint of this space is never overwritten.
                    area[s] = areaSequences[s][0] <= areaSequences[s][1] ? 0 : 1;
                    // Until its header is written again, the area holds no checkpoint.
                    areaSequences[s][area[s]] = 0;
                    fulls[s] = new FullBody(spaces.driver(s), spaces.get(s).areas(), area[s], s);
                    fulls[s].appendSegments(started.named.sequences());
                    fulls[s].append(ByteBuffer.wrap(started.files.bytes()));
                }
            } catch (IOException | RuntimeException e) {
                abandonBodies();
                throw e;
            }
            pass = index.startPass();
        }

        /**
         * Copies the slots of the next {@code buckets} buckets that point into segments this
         * checkpoint names (below the part named of one written in part) into their spaces' bodies;
         * returns whether every bucket is copied. A slot pointing elsewhere is a record appended since
         * the start, which a later checkpoint names.
         */
        boolean step(long buckets) throws IOException {
            if (copied) {
                return true;
            }
            int count = fulls.length;
            SegmentTable.Named named = started.named;
            try {
                copied = pass.visit(buckets, (bucket, slot) -> {
                    long address = ChunkIndex.address(slot);
                    int s = RecordAddress.space(address);
                    if (s < count && spaces.layout(s).contains(address) && named.names(table.segment(s,
                            spaces.layout(s).index(address)), spaces.layout(s).sectorInSegment(address))) {
                        try {
                            fulls[s].addEntry(bucket, slot);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    }
                });
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
            return copied;
        }

        /** Whether every space's body takes the slots of {@code buckets} more buckets without waiting for a write. */
        boolean roomFor(long buckets) throws IOException {
            // Capped at a piece, so that a step of any size makes progress once a piece is free.
            long most = Math.min(buckets * ChunkIndex.BUCKET_SLOTS * CheckpointHeader.ENTRY_BYTES,
                    BodyWriter.PIECE_BYTES - 1 - ENTRIES_STAGED * CheckpointHeader.ENTRY_BYTES);
            for (FullBody full : fulls) {
                if (full.writer.roomWithoutWaiting() < full.staged.position() + most) {
                    return false;
                }
            }
            return true;
        }

        /** Every space's body on flash and durable; no header yet. */
        void flushBodies() throws IOException {
            for (FullBody full : fulls) {
                full.drain();
                full.writer.finishBody();
            }
        }

        /** Every space's header, each made durable: from here recovery may choose this checkpoint. */
        void writeHeaders() throws IOException {
            Start s0 = started;
            for (int s = 0; s < fulls.length; s++) {
                // Exact: the pass gave each entry once, at most a bucket's worth per bucket.
                fulls[s].writer.writeHeader(new CheckpointHeader(instance, s, s0.sequence, s0.millis, s0.nextFileId,
                        s0.files.count(), s0.files.bytes().length, table.segmentsIn(s), spaces.layout(s).segmentBytes(),
                        index.buckets(), fulls[s].entries, s0.nextSegmentSequence, fulls[s].crc(), true).encode());
            }
        }

        /** Every space's area holds this checkpoint now (its headers durable); on the writer's thread. */
        void recordAreas() {
            for (int s = 0; s < fulls.length; s++) {
                areaSequences[s][area[s]] = started.sequence;
            }
        }

        /** Per space, the chain this checkpoint begins (its body written whole). */
        Chain[] chains() {
            Chain[] begun = new Chain[fulls.length];
            for (int s = 0; s < fulls.length; s++) {
                begun[s] = new Chain(area[s], started.sequence, fulls[s].bytes(), fulls[s].entries, s,
                        started.named);
            }
            return begun;
        }

        /** Gives the copy up: the index's pass ends, and no write of its bodies is left under way. */
        void giveUp() {
            pass.close();
            abandonBodies();
        }

        private void abandonBodies() {
            for (FullBody full : fulls) {
                if (full != null) {
                    full.writer.abandon();
                }
            }
        }

        long entries() {
            long n = 0;
            for (FullBody full : fulls) {
                n += full.entries;
            }
            return n;
        }

        long refused() {
            long n = 0;
            for (FullBody full : fulls) {
                n += full.refused;
            }
            return n;
        }

        long bytes() {
            long n = 0;
            for (FullBody full : fulls) {
                n += full.bytes();
            }
            return n;
        }
    }

    /**
     * The writer invalidated {@code key} (its chunk changed, or its record was damaged) when its next
     * record would go at {@code sector} of a segment's use {@code sequence}: every record of the key
     * before that place in the order of appends holds bytes from before. The next deltas of every
     * space name the key with that place, so that recovery puts no such record back from a segment's
     * summary or from the full checkpoint.
     */
    public synchronized void forgotten(long key, long sequence, int sector) {
        forgotten.add(key, sequence, sector);
    }

    /** The sequences each space's areas hold now (0 = none), for tests and the statistics. */
    public synchronized long[][] areaSequences() {
        long[][] copy = new long[areaSequences.length][];
        for (int s = 0; s < copy.length; s++) {
            copy[s] = areaSequences[s].clone();
        }
        return copy;
    }

    /** One space's full checkpoint body on its way to its area, with its checksum. */
    private final class FullBody {
        final BodyWriter writer;
        final CRC32C crc = new CRC32C();
        /** Entries gathered before they go to the writer and the checksum together: nothing per entry but the puts. */
        final ByteBuffer staged = ByteBuffer.allocate(ENTRIES_STAGED * CheckpointHeader.ENTRY_BYTES)
                .order(ByteOrder.LITTLE_ENDIAN);
        final int space;
        long entries;
        long refused;

        FullBody(StorageDriver driver, CheckpointAreas areas, int area, int space) throws IOException {
            this.writer = new BodyWriter(driver, areas.start(area), areas.bodyCapacityBytes(),
                    driver.path() + " checkpoint area " + CheckpointAreas.name(area), clockMillis);
            this.space = space;
        }

        void appendSegments(long[] named) throws IOException {
            ByteBuffer sequences = ByteBuffer.allocate(table.segmentsIn(space) * CheckpointHeader.SEGMENT_BYTES)
                    .order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < table.segmentsIn(space); i++) {
                sequences.putLong(named[table.segment(space, i)]);
            }
            append(sequences.flip());
        }

        void append(ByteBuffer bytes) throws IOException {
            drain();
            crc.update(bytes.duplicate());
            writer.append(bytes);
        }

        /** Adds one slot; an entry the area has no room for is left out and counted. */
        void addEntry(long bucket, long slot) throws IOException {
            if (!writer.fits(staged.position() + CheckpointHeader.ENTRY_BYTES)) {
                refused++;
                return;
            }
            staged.putInt((int) bucket).putLong(slot);
            entries++;
            if (!staged.hasRemaining()) {
                drain();
            }
        }

        /** The entries gathered so far, to the writer and the checksum. */
        void drain() throws IOException {
            if (staged.position() > 0) {
                staged.flip();
                crc.update(staged.duplicate());
                writer.append(staged);
                staged.clear();
            }
        }

        int crc() {
            return (int) crc.getValue();
        }

        /** The body's bytes so far, those gathered and not yet handed to the writer included. */
        long bytes() {
            return writer.bytes() + staged.position();
        }
    }

    /**
     * One space's full checkpoint written by this run, with what it named, and the deltas written
     * after it in its area.
     */
    private final class Chain {
        final int area;
        final long baseSequence;
        final long baseEntries;
        final int space;
        /** Per segment of the space, the use the full checkpoint named (0 = none) and the sectors it named chunks in. */
        final long[] sequences;
        final int[] sectors;
        /**
         * Per segment, a use the chain was recovered with and the sectors of it the recovered
         * checkpoints named (0 where none): this run names no more of that use, since records past
         * them were written after the last checkpoint read, and may be older than an invalidation
         * that the crash lost (the table holds such a segment whole once recovered).
         */
        final long[] recoveredSequences;
        final int[] recoveredSectors;
        /** Where the next delta's header goes, and the first block past the area. */
        long nextBlock;
        final long endBlock;
        int deltas;

        Chain(int area, long baseSequence, long bodyBytes, long baseEntries, int space, SegmentTable.Named named) {
            this.baseEntries = baseEntries;
            this.area = area;
            this.baseSequence = baseSequence;
            this.space = space;
            CheckpointAreas areas = spaces.get(space).areas();
            this.nextBlock = areas.start(area) + 1 + blocks(bodyBytes);
            this.endBlock = areas.start(area) + 1 + areas.bodyCapacityBytes() / BlockDevice.BLOCK_SIZE;
            int segments = table.segmentsIn(space);
            this.sequences = new long[segments];
            this.sectors = new int[segments];
            this.recoveredSequences = new long[segments];
            this.recoveredSectors = new int[segments];
            for (int i = 0; i < segments; i++) {
                int segment = table.segment(space, i);
                sequences[i] = named.sequences()[segment];
                sectors[i] = named.sequences()[segment] == 0 ? 0 : named.sectors()[segment];
            }
        }

        /** The chain recovery read in this space, going on after its last delta. */
        Chain(RecoveredChain recovered, int space) {
            this.area = recovered.area;
            this.baseSequence = recovered.baseSequence;
            this.baseEntries = recovered.baseEntries;
            this.space = space;
            CheckpointAreas areas = spaces.get(space).areas();
            this.nextBlock = recovered.nextBlock;
            this.endBlock = areas.start(area) + 1 + areas.bodyCapacityBytes() / BlockDevice.BLOCK_SIZE;
            this.deltas = recovered.deltas;
            this.sequences = recovered.baseSequences.clone();
            this.sectors = recovered.baseSectors.clone();
            this.recoveredSequences = recovered.namedSequences.clone();
            this.recoveredSectors = recovered.namedSectors.clone();
        }

        /** The sectors of segment {@code i} (a table {@code segment}) that a checkpoint now names, 0 for none. */
        int part(SegmentTable.Named named, int i, int segment) {
            long use = named.sequences()[segment];
            if (use == 0) {
                return 0;
            }
            int part = named.sectors()[segment];
            return use == recoveredSequences[i] ? Math.min(part, recoveredSectors[i]) : part;
        }

        /**
         * What a delta of this space names: its segments (indexes in the space) whose use or named
         * part differs from the full checkpoint's, and the new records of those named in part (read
         * back from the summary the writer just wrote ahead for them); or null when the space should
         * write a full checkpoint instead.
         */
        DeltaPlan changes(SegmentTable.Named named, FileTableCodec.Encoded files, int forgottenChunks) {
            if (deltas >= DeltaHeader.MAX_DELTAS) {
                return null;
            }
            int segments = sequences.length;
            long most = DeltaHeader.maxChanges(segments);
            int[] changed = new int[segments];
            int n = 0;
            for (int i = 0; i < segments; i++) {
                int segment = table.segment(space, i);
                long sequence = named.sequences()[segment];
                int part = part(named, i, segment);
                if (sequence != sequences[i] || part != sectors[i]) {
                    if (n >= most) {
                        return null;
                    }
                    changed[n++] = i;
                }
            }
            DeltaPlan plan = new DeltaPlan(space, Arrays.copyOf(changed, n));
            for (int i : plan.changed) {
                int segment = table.segment(space, i);
                long use = named.sequences()[segment];
                int part = part(named, i, segment);
                if (use != 0 && part != DeltaHeader.ALL_SECTORS && !plan.listAhead(i, from(i, use), part, use)) {
                    return null;
                }
            }
            long bodyBytes = (long) n * DeltaHeader.CHANGE_BYTES + (long) forgottenChunks * DeltaHeader.FORGOTTEN_BYTES
                    + (long) plan.ahead * DeltaHeader.AHEAD_BYTES + files.bytes().length;
            return nextBlock + 1 + blocks(bodyBytes) <= endBlock ? plan : null;
        }

        /** The first sector whose records are new in use {@code use} of segment {@code i}: the full checkpoint names those before. */
        int from(int i, long use) {
            return use != 0 && use == sequences[i] ? sectors[i] : 0;
        }

        /** Writes a delta of {@code plan} after the last one, makes it durable; returns its body bytes. */
        long writeDelta(DeltaPlan plan, long[] forgottenEntries, int forgottenChunks, SegmentTable.Named named,
                        FileTableCodec.Encoded files, long sequence, long startedMillis, int nextFileId,
                        long nextSegmentSequence) throws IOException {
            StorageDriver driver = spaces.driver(space);
            int position = deltas + 1;
            BodyWriter writer = new BodyWriter(driver, nextBlock, (endBlock - nextBlock - 1) * BlockDevice.BLOCK_SIZE,
                    driver.path() + " checkpoint area " + CheckpointAreas.name(area) + " delta " + position, clockMillis);
            CRC32C crc = new CRC32C();
            ByteBuffer change = ByteBuffer.allocate(DeltaHeader.CHANGE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            for (int i : plan.changed) {
                int segment = table.segment(space, i);
                long use = named.sequences()[segment];
                change.clear();
                change.putLong(use).putInt(i).putInt(from(i, use)).putInt(part(named, i, segment)).flip();
                crc.update(change.duplicate());
                writer.append(change);
            }
            ByteBuffer key = ByteBuffer.allocate(DeltaHeader.FORGOTTEN_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < forgottenChunks; i++) {
                key.clear();
                key.putLong(forgottenEntries[3 * i]).putLong(forgottenEntries[3 * i + 1])
                        .putInt((int) forgottenEntries[3 * i + 2]).flip();
                crc.update(key.duplicate());
                writer.append(key);
            }
            ByteBuffer record = ByteBuffer.allocate(DeltaHeader.AHEAD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            for (int r = 0; r < plan.ahead; r++) {
                record.clear();
                record.putInt(plan.aheadSegments[r]).putInt(plan.aheadSectors[r]).putLong(plan.aheadKeys[r]).flip();
                crc.update(record.duplicate());
                writer.append(record);
            }
            crc.update(ByteBuffer.wrap(files.bytes()));
            writer.append(ByteBuffer.wrap(files.bytes()));
            DeltaHeader header = new DeltaHeader(instance, space, sequence, baseSequence, position, startedMillis,
                    nextFileId, files.count(), files.bytes().length, sequences.length,
                    spaces.layout(space).segmentBytes(), plan.changed.length, forgottenChunks, plan.ahead,
                    nextSegmentSequence, (int) crc.getValue());
            writer.finish(header.encode());
            nextBlock += header.blocks();
            deltas = position;
            return writer.bytes();
        }
    }

    /**
     * What one space's delta names: its changed segments, and the records new in those named in part,
     * whose summary on flash the writer writes again as the segment fills (a power cut can tear it).
     */
    private final class DeltaPlan {
        final int space;
        final int[] changed;
        int ahead;
        int[] aheadSegments = new int[16];
        int[] aheadSectors = new int[16];
        long[] aheadKeys = new long[16];

        DeltaPlan(int space, int[] changed) {
            this.space = space;
            this.changed = changed;
        }

        /**
         * Lists the records of use {@code use} of segment {@code i} from sector {@code from} to
         * {@code to}, as the summary just written ahead for it names them; false when it cannot be read
         * or does not name them all (the space then writes a full checkpoint).
         */
        boolean listAhead(int i, int from, int to, long use) {
            SegmentSummary summary;
            try {
                summary = spaces.get(space).readSummary(i, use);
            } catch (IOException | RecordMismatchException e) {
                return false;
            }
            int sectorBytes = spaces.layout(space).sectorBytes();
            int end = 0;
            for (int r = 0; r < summary.count(); r++) {
                int sector = summary.sectors()[r];
                end = Math.max(end, sector + RecordFormat.recordBytes(summary.lengths()[r], sectorBytes) / sectorBytes);
                if (sector >= from && sector < to) {
                    if (ahead == aheadKeys.length) {
                        aheadSegments = Arrays.copyOf(aheadSegments, 2 * ahead);
                        aheadSectors = Arrays.copyOf(aheadSectors, 2 * ahead);
                        aheadKeys = Arrays.copyOf(aheadKeys, 2 * ahead);
                    }
                    aheadSegments[ahead] = i;
                    aheadSectors[ahead] = sector;
                    aheadKeys[ahead] = summary.keys()[r];
                    ahead++;
                }
            }
            return end >= to && ahead <= DeltaHeader.maxAhead(spaces.layout(space).segmentBytes());
        }
    }

    /**
     * The chunks invalidated since the last full checkpoints: each key and the place in the order of
     * appends (segment sequence, sector) its records from then on are at, three longs each.
     */
    private static final class Forgotten {
        long[] entries = new long[3 * 64];
        int size;
        /** Invalidations not kept, the log being full: until a full checkpoint after them, no delta. */
        long lost;
        long lostAtLastFull;

        void add(long key, long sequence, int sector) {
            if (size == DeltaHeader.MAX_FORGOTTEN) {
                lost++;
                return;
            }
            if (3 * size == entries.length) {
                entries = Arrays.copyOf(entries, 2 * entries.length);
            }
            entries[3 * size] = key;
            entries[3 * size + 1] = sequence;
            entries[3 * size + 2] = sector;
            size++;
        }

        /** Whether a delta can name every invalidation since the full checkpoints of {@code baseEntries} in all. */
        boolean fitsDelta(long baseEntries) {
            return lost == lostAtLastFull
                    && size <= Math.max(MIN_FORGOTTEN_FOR_FULL, baseEntries / DeltaHeader.CHANGES_SHARE);
        }

        /**
         * Full checkpoints copied the index after the first {@code n} and the first {@code lostBefore}
         * lost: of those, only invalidations at or past sequence {@code keepFrom} stay, since records
         * of that use from before them may lie past what the full checkpoints named, and a later
         * delta names that part from the segment's summary.
         */
        void dropFirst(int n, long lostBefore, long keepFrom) {
            int kept = 0;
            for (int i = 0; i < n; i++) {
                if (entries[3 * i + 1] >= keepFrom) {
                    System.arraycopy(entries, 3 * i, entries, 3 * kept++, 3);
                }
            }
            System.arraycopy(entries, 3 * n, entries, 3 * kept, 3 * (size - n));
            size -= n - kept;
            lostAtLastFull = lostBefore;
        }
    }

    private static long blocks(long bytes) {
        return (bytes + BlockDevice.BLOCK_SIZE - 1) / BlockDevice.BLOCK_SIZE;
    }
}

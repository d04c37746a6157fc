package io.flashchunk.cache.engine;

import static io.flashchunk.cache.engine.EngineFixture.CHUNK;
import static io.flashchunk.cache.engine.EngineFixture.SEGMENT_BYTES;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.checkpoint.CheckpointSchedule;
import io.flashchunk.cache.checkpoint.Checkpointer;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.files.NamedFiles;
import io.flashchunk.cache.format.ChunkCompression;
import io.flashchunk.cache.format.ChunkForm;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.index.ChunkLocations;
import io.flashchunk.cache.read.FlashReadGate;
import io.flashchunk.cache.read.FlashReadPolicy;
import io.flashchunk.cache.space.DeviceStart;
import io.flashchunk.cache.space.SegmentDiscards;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.cache.write.Writer;
import io.flashchunk.cache.write.WriterPolicy;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.FaultyDevice;
import io.flashchunk.testing.MemoryDevice;
import io.flashchunk.testing.PowerCutDevice;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The power-cut simulator over the engine. One seeded history on two devices with volatile
 * write caches: a format of blank devices, a first cache's reads, appends, rewrites (a chunk's file
 * written anew under the same name: its key comes back with other bytes), reclaims (reinserting
 * read chunks), checkpoints (half of them with the writer appending after the index was copied) and
 * flushes; then, after both its superblocks were damaged (one device after the other: a device
 * whose superblock is still whole keeps that cache's chunks), a format over that cache's records (the
 * devices named in the other order), and a
 * second cache doing the same with every chunk rewritten (file ids restart with a new cache, so its
 * keys are the first one's with other bytes). Each cache of the history discards (TRIMs) its free
 * segments with even odds, as {@code discard: true} does: every segment at its format, then each as it
 * becomes free, before its reuse (the next step waits for them, so the history is the seed's). Each cut (half anywhere, half in or just before a
 * checkpoint, some in or around each format) is an image a power cut could leave
 * ({@link PowerCutDevice}), started by a real {@link CacheEngine} with the devices as the operator
 * named them at that moment (a quarter of the cuts in the other order, a quarter with a blank device
 * added between them: the index of another size), half of them with {@code discard: true} (every
 * segment no checkpoint names zeroed before the first read). Chunk bytes are a function of the key and its version, so a stale
 * record (an earlier version, or the first cache's) served as current is seen.
 *
 * <p>Checked at every cut: no chunk is served with bytes other than a version the newest complete
 * checkpoint of the cache running at the cut named (or the one being written then); every chunk
 * that checkpoint named, and the one being written names too, comes back; no chunk is restored
 * twice; then the recovered engine rewrites some chunks and appends them over flash full of older
 * records, and every chunk read after that is its newest version or a miss. Half of those engines
 * then write a checkpoint and crash; half of those crashes are followed by a start cut while it
 * writes the superblocks (half with the devices named in the other order, a new run; half of them
 * followed by a second start cut the same way), and the start
 * after it must bring back every chunk that checkpoint named (with the order unchanged) and serve
 * none changed. A broken promise throws.
 * CI runs a few hundred cuts ({@link PowerCutTest}); {@code scripts/sim-power-cut.sh} runs
 * many through {@link #main}.
 */
public final class PowerCutSimulation {
    private static final NamedFiles NO_FILES = EngineFixture.NO_FILES;
    private static final int KEYS = 500;
    /** Blocks a device: room for 5 segments of 256 KiB beside its superblock and checkpoint areas. */
    private static final long DEVICE_BLOCKS = 370;
    /**
     * How long the recovered engine's writer may take to come to a point it was asked to reach: long,
     * since a long run may share the machine (at idle priority, its writer thread can wait seconds).
     */
    private static final long AWAIT_SECONDS = 300;
    /** Chunks the recovered engine rewrites and appends after each cut. */
    private static final int REWRITTEN_AFTER_RECOVERY = 40;

    /** A chunk's record as the history put it: where, and which version of its bytes. */
    private record Placed(long address, int version) {
    }

    /**
     * A checkpoint of the history: the timeline before and after it, the chunks it named, and the
     * version each chunk with a record of its newest bytes had when it started (a delta may bring back
     * a chunk the index had lost, from its record's summary: its bytes then, never older ones).
     */
    private record Checkpoint(long start, long end, Map<Long, Placed> named, Map<Long, Integer> current) {
    }

    /** The end of a full checkpoint in steps runs on a thread of this name ({@link Checkpointer}). */
    private static final String END_THREAD = "flashchunk-checkpoint-end";

    /** What the end of a full checkpoint in steps goes on beside: a burst at a write, a gate at one, the writer's operations. */
    private record Ends(AtomicInteger writesUntilBurst, AtomicReference<Runnable> atWrite, Writer invalidations,
                        SegmentDiscards discards) {
    }

    /**
     * One cache's life in the history: the damage to the cache before's superblocks that makes start
     * format the devices (from {@code wipeStart}; none for the first), its format, its checkpoints.
     */
    private record Phase(long wipeStart, long formatStart, long formatEnd, List<Checkpoint> checkpoints,
                         boolean swapped) {
    }

    /** What one seed's history did and what its cuts checked ({@code cuts}: the images recovered). */
    record Result(long seed, int operations, int cuts, int checkpoints, long reclaimed, long reinserted,
                  int appendedDuringCheckpoints, int rewrites, long chunksServed, long checkedBack,
                  long appendedAfterRecovery, long cutsInFormats, long discardedAtStart, long discardedInHistory,
                  int deltaCheckpoints, long cutsFromDeltas, long continuedDeltas, int fullsInSteps,
                  int appendedDuringFullEnds, int rewrittenDuringFullEnds, long cutsWithDevicesChanged,
                  long crashesInStarts, long crashesInStartsWithDevicesChanged) {
    }

    private PowerCutSimulation() {
    }

    /**
     * Runs seeds and prints one JSON line each; exits 1 at the first broken promise (its message on
     * stderr). Arguments: --seeds N, --cuts N, --operations N, --first-seed N, --late-us N (each device
     * write completes up to N microseconds late: other interleavings of completions and steps).
     */
    public static void main(String[] args) {
        int seeds = 10;
        int cuts = 1000;
        int operations = 4000;
        long firstSeed = 1;
        long lateMicros = 0;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--seeds" -> seeds = Integer.parseInt(args[i + 1]);
                case "--cuts" -> cuts = Integer.parseInt(args[i + 1]);
                case "--operations" -> operations = Integer.parseInt(args[i + 1]);
                case "--first-seed" -> firstSeed = Long.parseLong(args[i + 1]);
                case "--late-us" -> lateMicros = Long.parseLong(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --seeds, --cuts, --operations, --first-seed, --late-us)");
            }
        }
        for (long seed = firstSeed; seed < firstSeed + seeds; seed++) {
            long start = System.nanoTime();
            Result r;
            try {
                r = simulate(seed, operations, cuts, TimeUnit.MICROSECONDS.toNanos(lateMicros), seed % 2 == 0);
            } catch (Exception | AssertionError e) {
                System.out.printf(Locale.ROOT, "{\"seed\": %d, \"operations\": %d, \"cuts\": %d, \"problems\": 1}%n",
                        seed, operations, cuts);
                System.out.flush();
                System.err.println("seed " + seed + ": " + e);
                System.exit(1);
                return;
            }
            System.out.printf(Locale.ROOT, "{\"seed\": %d, \"operations\": %d, \"cuts\": %d, \"checkpoints\": %d, "
                            + "\"reclaimed\": %d, \"reinserted\": %d, \"appended_during_checkpoints\": %d, "
                            + "\"rewrites\": %d, \"cuts_in_formats\": %d, \"chunks_served\": %d, "
                            + "\"named_by_the_durable_checkpoint\": %d, \"appended_after_recovery\": %d, "
                            + "\"segments_discarded_at_start\": %d, \"segments_discarded_in_history\": %d, "
                            + "\"delta_checkpoints\": %d, \"cuts_recovered_from_deltas\": %d, "
                            + "\"recovered_runs_checked_after_a_delta\": %d, \"full_checkpoints_in_steps\": %d, "
                            + "\"appended_during_full_ends\": %d, \"rewritten_during_full_ends\": %d, "
                            + "\"cuts_with_devices_changed\": %d, \"crashes_in_starts\": %d, "
                            + "\"crashes_in_starts_with_devices_changed\": %d, "
                            + "\"problems\": 0, \"seconds\": %.1f}%n",
                    r.seed(), r.operations(), r.cuts(),
                    r.checkpoints(), r.reclaimed(), r.reinserted(), r.appendedDuringCheckpoints(), r.rewrites(),
                    r.cutsInFormats(), r.chunksServed(), r.checkedBack(), r.appendedAfterRecovery(), r.discardedAtStart(),
                    r.discardedInHistory(), r.deltaCheckpoints(), r.cutsFromDeltas(), r.continuedDeltas(), r.fullsInSteps(),
                    r.appendedDuringFullEnds(), r.rewrittenDuringFullEnds(), r.cutsWithDevicesChanged(),
                    r.crashesInStarts(), r.crashesInStartsWithDevicesChanged(), (System.nanoTime() - start) / 1e9);
            System.out.flush();
        }
    }

    /** One seed's history and cuts; {@code maxLateNanos}: how late device writes may complete (0: at once). */
    static Result simulate(long seed, int operations, int cuts, long maxLateNanos) throws Exception {
        return simulate(seed, operations, cuts, maxLateNanos, false);
    }

    /**
     * As above; {@code tinyLfu}: the engine's reclaim order, which gives segments up of its own accord
     * as others are written (each doomed at once), instead of FIFO, whose batches are doomed on need.
     */
    static Result simulate(long seed, int operations, int cuts, long maxLateNanos, boolean tinyLfu) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        AtomicLong timeline = new AtomicLong();
        PowerCutDevice a = PowerCutDevice.blank("a", DEVICE_BLOCKS, 8, timeline);
        PowerCutDevice b = PowerCutDevice.blank("b", DEVICE_BLOCKS, 8, timeline);
        if (maxLateNanos > 0) {
            a.completeLate(maxLateNanos, seed);
            b.completeLate(maxLateNanos, ~seed);
        }
        FaultyDevice faultyA = new FaultyDevice(a);
        FaultyDevice faultyB = new FaultyDevice(b);
        Map<Long, Integer> versions = new HashMap<>(); // key -> the version its next append writes
        for (int k = 0; k < KEYS; k++) {
            versions.put(key(k), 1);
        }
        History history = new History(random, versions, tinyLfu);
        Phase first = history.run(timeline, operations / 2, false, faultyA, faultyB);
        // Every file is new to the second cache: its keys are the first one's, with other bytes.
        versions.replaceAll((key, version) -> version + 1);
        Phase second = history.run(timeline, operations - operations / 2, true, faultyB, faultyA);
        // What a history of this length does, at the least (4,000 operations: 20 of each, 100 burst appends).
        int least = operations / 200;
        assertTrue(first.checkpoints().size() + second.checkpoints().size() > least && history.reclaimed > least
                        && history.burstAppends.get() > 5 * least && history.reinserted > least / 2
                        && history.rewrites > least,
                history.checkpoints() + " checkpoints, " + history.reclaimed + " reclaimed, " + history.reinserted
                        + " reinserted, " + history.burstAppends.get() + " appended while a checkpoint ran, "
                        + history.rewrites + " rewrites");
        // The crash images assume each write lands after the ones before it that it overlaps.
        assertEquals(0, a.overlappingWrites() + b.overlappingWrites(), "writes of the same blocks in flight at once");
        assertEquals(0, a.discardsOverWrites() + b.discardsOverWrites(), "a discard of blocks a write was in flight to");

        long end = timeline.get();
        long checkedBack = 0;
        long served = 0;
        long appendedAfter = 0;
        long inFormats = 0;
        long discardedAtStart = 0;
        long fromDeltas = 0;
        long continuedDeltas = 0;
        long devicesChanged = 0;
        long crashesInStarts = 0;
        long crashesInStartsChanged = 0;
        for (int i = 0; i <= cuts; i++) {
            long t = cutPoint(random, i, cuts, end, first, second);
            Phase phase = t < second.wipeStart() ? first : second;
            // While the first cache's superblocks are damaged one by one, a device whose superblock is
            // still whole keeps the first cache's chunks (their files' bytes then): those may be served,
            // none must come back.
            boolean wiping = t >= second.wipeStart() && t < second.formatStart();
            inFormats += t <= first.formatEnd() || (t >= second.wipeStart() && t <= second.formatEnd()) ? 1 : 0;
            MemoryDevice cutA = new MemoryDevice("a", a.crashImage(a.cutAt(t), random), 8);
            MemoryDevice cutB = new MemoryDevice("b", b.crashImage(b.cutAt(t), random), 8);
            String where = "seed " + seed + ", cut at " + t + " of " + end;
            CutCheck check = new CutCheck(where, wiping ? first : phase, t, versions, wiping);
            // The devices as the operator named them at that moment; a quarter of the cuts start them in
            // the other order, and another quarter with a blank device added between them (so the index
            // is of another size, and recovery re-indexes through the segments' summaries).
            MemoryDevice[] named = phase.swapped() ? new MemoryDevice[] {cutB, cutA} : new MemoryDevice[] {cutA, cutB};
            int change = random.nextInt(4);
            MemoryDevice[] started = change == 2 ? new MemoryDevice[] {named[1], named[0]}
                    : change == 3 ? new MemoryDevice[] {named[1], MemoryDevice.blank("c", DEVICE_BLOCKS, 8), named[0]}
                    : named;
            devicesChanged += change >= 2 ? 1 : 0;
            check.run(started, random);
            checkedBack += check.checkedBack;
            served += check.served;
            appendedAfter += check.appendedAfter;
            discardedAtStart += check.discardedAtStart;
            fromDeltas += check.fromDelta ? 1 : 0;
            continuedDeltas += check.continuedDelta ? 1 : 0;
            crashesInStarts += check.crashedStart ? 1 : 0;
            crashesInStartsChanged += check.crashedStart && check.crashedStartChanged ? 1 : 0;
        }
        assertTrue(appendedAfter > 0, "no chunk was appended after a recovery: the simulation tests no appends");
        return new Result(seed, operations, cuts + 1, history.checkpoints(), history.reclaimed, history.reinserted,
                history.burstAppends.get(), history.rewrites, served, checkedBack, appendedAfter, inFormats,
                discardedAtStart, history.discarded, history.deltaCheckpoints, fromDeltas, continuedDeltas,
                history.fullsInSteps, history.appendedDuringFullEnds, history.rewrittenDuringFullEnds, devicesChanged,
                crashesInStarts, crashesInStartsChanged);
    }

    /** Half the cuts anywhere; the rest around a checkpoint, with one in ten in or around a format. */
    private static long cutPoint(SplittableRandom random, int i, int cuts, long end, Phase first, Phase second) {
        if (i % 2 == 0) {
            return end * i / cuts;
        }
        if (i % 10 == 1) {
            Phase format = random.nextBoolean() ? first : second;
            return Math.max(0, format.wipeStart() - 5 + random.nextLong(format.formatEnd() - format.wipeStart() + 11));
        }
        List<Checkpoint> all = new ArrayList<>(first.checkpoints());
        all.addAll(second.checkpoints());
        Checkpoint near = all.get(random.nextInt(all.size()));
        return Math.max(0, near.start() - 30 + random.nextLong(near.end() - near.start() + 31));
    }

    /** Chunks' bytes by seed, generated once (the profile's top CPU sample; about 7% of a run); each caller gets its own copy. */
    private static final Map<Long, byte[]> CHUNKS = new ConcurrentHashMap<>();

    /**
     * Chunk {@code key}'s bytes at {@code version}: random, or for every other one ({@link #compressible})
     * random for a quarter of it and zeros after, so that it is stored compressed.
     */
    static ByteBuffer chunk(long key, int version) {
        byte[] bytes = CHUNKS.computeIfAbsent(key * 1_000_003 + version, seed -> {
            byte[] generated = new byte[CHUNK];
            byte[] random = new byte[compressible(key, version) ? CHUNK / 4 : CHUNK];
            new Random(seed).nextBytes(random);
            System.arraycopy(random, 0, generated, 0, random.length);
            return generated;
        });
        return ByteBuffer.wrap(bytes.clone());
    }

    /**
     * The chunk size the engines' indexes are sized for: that of a compressed chunk's record (a quarter
     * of a chunk), as an operator whose chunks are stored compressed sets {@code expected_chunk_size},
     * so that the index holds every record the flash can.
     */
    private static final int INDEXED_CHUNK = CHUNK / 4;

    /** Whether chunk {@code key} at {@code version} is one stored compressed (LZ4) in the histories. */
    static boolean compressible(long key, int version) {
        return ((Long.hashCode(key * 0x9E37_79B9_7F4A_7C15L) + version) & 1) == 0;
    }

    /** The history's caches, one after the other on the same two devices, and what they did. */
    private static final class History {
        final SplittableRandom random;
        final Map<Long, Integer> versions;
        final boolean tinyLfu;
        final AtomicInteger burstAppends = new AtomicInteger();
        final List<Phase> phases = new ArrayList<>();
        long reclaimed;
        long reinserted;
        int rewrites;
        long discarded;
        int deltaCheckpoints;
        int fullsInSteps;
        /** Appended, and rewritten, while a full checkpoint's end ran on its own thread. */
        int appendedDuringFullEnds;
        int rewrittenDuringFullEnds;
        Checkpointer.Result lastResult;

        History(SplittableRandom random, Map<Long, Integer> versions, boolean tinyLfu) {
            this.random = random;
            this.versions = versions;
            this.tinyLfu = tinyLfu;
        }

        int checkpoints() {
            return phases.stream().mapToInt(p -> p.checkpoints().size()).sum();
        }

        /**
         * Formats the devices (in this order: space 0, space 1) as a new cache, over whatever they
         * hold, and runs {@code operations} steps of it. A cache before on them ({@code swapped}: the
         * second) has its superblocks damaged first, one device after the other: start keeps the chunks
         * of any device whose superblock is whole, wherever it stands in the list.
         */
        Phase run(AtomicLong timeline, int operations, boolean swapped, FaultyDevice space0, FaultyDevice space1)
                throws Exception {
            List<StorageDriver> drivers = List.of(new StorageDriver(space0, 2, TimeUnit.SECONDS.toNanos(5)),
                    new StorageDriver(space1, 2, TimeUnit.SECONDS.toNanos(5)));
            long wipeStart = timeline.get();
            if (swapped) {
                for (StorageDriver driver : drivers) {
                    ByteBuffer block = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE);
                    block.put(DeviceStart.readBlock(driver, 0)).clear();
                    block.put(40, (byte) (block.get(40) ^ 1)); // the device's size: its checksum no longer matches
                    driver.writeAndWait(0, block, "damaging the superblock");
                    driver.flush();
                }
            }
            long formatStart = timeline.get();
            DeviceStart.Outcome start = DeviceStart.open(drivers, SEGMENT_BYTES, false, List.of(), () -> 1);
            assertTrue(start.formatted(), "each cache of the history starts on devices formatted for it");
            long formatEnd = timeline.get();
            // Space 0 runs a burst of appends inside a checkpoint's body write when armed: the writer
            // going on after the index was copied, reclaiming segments the checkpoint names.
            EngineFixture engine = new EngineFixture(start, TimeUnit.SECONDS.toNanos(5),
                    tinyLfu ? EngineFixture.Order.ENGINE : EngineFixture.Order.OLDEST_FIRST, new WriterPolicy(null, 0.2), space0, space1);
            Checkpointer checkpointer = engine.checkpointer(start.instance());
            // Invalidations go through the engine's writer step, which tells this checkpointer.
            Writer invalidations = engine.parts.writer(checkpointer,
                    new CheckpointSchedule(Integer.MAX_VALUE, Long.MAX_VALUE, SEGMENT_BYTES, 0, () -> 0), NO_FILES, () -> 0);
            SegmentDiscards discards = random.nextBoolean()
                    ? engine.parts.discardFreedSegments(new boolean[] {true, true}) : null;
            settle(discards, engine.table);
            Map<Long, Placed> model = new HashMap<>(); // key -> where the writer put it, and which version
            List<Checkpoint> checkpoints = new ArrayList<>();
            AtomicInteger writesUntilBurst = new AtomicInteger(Integer.MIN_VALUE);
            AtomicReference<Runnable> atWrite = new AtomicReference<>();
            Ends ends = new Ends(writesUntilBurst, atWrite, invalidations, discards);
            space0.delay(FaultyDevice.Op.WRITE, () -> {
                Runnable gate = atWrite.get();
                if (gate != null) {
                    gate.run();
                }
                if (writesUntilBurst.decrementAndGet() == 0) {
                    for (int i = 0; i < 3 * EngineFixture.PER_SEGMENT; i++) {
                        long key = key(random.nextInt(KEYS));
                        if (append(engine, model, key)) {
                            burstAppends.incrementAndGet();
                        }
                    }
                }
            });
            long inStepsSince = -1; // the timeline when the full checkpoint under way started, -1: none
            for (int op = 0; op < operations; op++) {
                if (inStepsSince >= 0 && checkpointer.step(1 + random.nextInt(3))) {
                    checkpoints.add(finishInSteps(engine, checkpointer, timeline, model, inStepsSince, ends));
                    inStepsSince = -1;
                }
                double what = random.nextDouble();
                long key = key(random.nextInt(KEYS));
                if (what < 0.15) {
                    ByteBuffer read = engine.read(key); // a hit marks the chunk for reinsertion
                    Placed placed = model.get(key);
                    assertTrue(read == null || placed != null && read.equals(chunk(key, placed.version())),
                            "before any cut, chunk " + key);
                } else if (what < 0.19) {
                    rewrite(invalidations, model, key);
                } else if (what < 0.93) {
                    boolean appended = append(engine, model, key, discards);
                    if (!appended && inStepsSince >= 0) {
                        // as the engine's writer does: the full checkpoint under way ends, and frees what it can
                        checkpoints.add(finishInSteps(engine, checkpointer, timeline, model, inStepsSince, ends));
                        inStepsSince = -1;
                        appended = append(engine, model, key, discards);
                    }
                    if (!appended) {
                        checkpoints.add(checkpoint(engine, checkpointer, timeline, model, random.nextBoolean(), () -> { }));
                        assertTrue(append(engine, model, key, discards), "after a checkpoint " + lastResult + ", segments "
                                + java.util.stream.IntStream.range(0, engine.table.segments())
                                .mapToObj(x -> engine.table.state(x).toString()).collect(java.util.stream.Collectors.joining(",")));
                    }
                } else if (what < 0.97 && inStepsSince < 0 && random.nextBoolean()) {
                    // Half the checkpoints as the engine's schedule starts them: a delta at once, a full one
                    // in steps between the operations that follow.
                    long startedAt = timeline.get();
                    if (random.nextBoolean()) {
                        engine.segmentWriter.persist();
                    }
                    Checkpoint named = planned(engine, timeline, model, startedAt);
                    lastResult = checkpointer.start(NO_FILES);
                    if (lastResult == null) {
                        inStepsSince = startedAt;
                        fullsInSteps++;
                    } else {
                        deltaCheckpoints++;
                        checkpoints.add(new Checkpoint(startedAt, timeline.get(), named.named(), named.current()));
                    }
                } else if (what < 0.97 && inStepsSince < 0) {
                    // Half the checkpoints: a burst at space 0's second write, the body, after the copy.
                    int burstAt = random.nextBoolean() ? 2 : Integer.MIN_VALUE;
                    checkpoints.add(checkpoint(engine, checkpointer, timeline, model, random.nextBoolean(),
                            () -> writesUntilBurst.set(burstAt)));
                    writesUntilBurst.set(Integer.MIN_VALUE);
                } else if (what < 0.97) {
                    engine.segmentWriter.flush(); // a full checkpoint is under way: its steps go on meanwhile
                } else {
                    engine.segmentWriter.flush();
                }
                settle(discards, engine.table);
            }
            if (inStepsSince >= 0) {
                checkpoints.add(finishInSteps(engine, checkpointer, timeline, model, inStepsSince, ends));
            }
            engine.segmentWriter.flush();
            space0.delay(FaultyDevice.Op.WRITE, null);
            if (discards != null) {
                settle(discards, engine.table);
                discards.close(); // before the next cache formats the devices
                discarded += discards.discarded();
            }
            reclaimed += engine.segmentWriter.reclaimed();
            reinserted += engine.segmentWriter.reinserted();
            Phase phase = new Phase(wipeStart, formatStart, formatEnd, checkpoints, swapped);
            phases.add(phase);
            return phase;
        }

        /** Waits until no segment waits for its discard: the history's next step is the seed's alone. */
        private static void settle(SegmentDiscards discards, SegmentTable table) throws InterruptedException {
            if (discards == null) {
                return;
            }
            while (true) {
                long ended = discards.ended();
                if (table.discarding() == 0) {
                    return;
                }
                assertTrue(discards.awaitEnded(ended + 1, AWAIT_SECONDS, TimeUnit.SECONDS), "a discard did not end");
            }
        }

        /**
         * Appends the key's current version, as the engine's writer does: again once the discards
         * of the segments the attempt freed end; false when the writer has no room.
         */
        private boolean append(EngineFixture engine, Map<Long, Placed> model, long key, SegmentDiscards discards)
                throws InterruptedException {
            while (true) {
                long ended = discards == null ? 0 : discards.ended();
                if (append(engine, model, key)) {
                    return true;
                }
                // A discard in the way, or one that ended since the attempt began (the attempt may have
                // started it): once it has, try again. Neither: the writer has no room.
                if (discards == null || engine.table.discarding() == 0 && discards.ended() == ended) {
                    return false;
                }
                settle(discards, engine.table);
            }
        }

        /** Appends the key's current version; false when the writer has no room. */
        private boolean append(EngineFixture engine, Map<Long, Placed> model, long key) {
            int version = versions.get(key);
            boolean compress = compressible(key, version);
            if (!engine.segmentWriter.append(key, compress ? ChunkCompression.compress(chunk(key, version)) : chunk(key, version),
                    compress ? ChunkForm.LZ4 : ChunkForm.RAW)) {
                return false;
            }
            model.put(key, new Placed(engine.index.find(key), version));
            return true;
        }

        /**
         * The chunk's file written anew under the same name: the key leaves the index as the engine's
         * invalidation takes it out, and its next append has other bytes.
         */
        private void rewrite(Writer writer, Map<Long, Placed> model, long key) {
            writer.invalidate(key);
            model.remove(key);
            versions.merge(key, 1, Integer::sum);
            rewrites++;
        }

        private Checkpoint checkpoint(EngineFixture engine, Checkpointer checkpointer,
                                      AtomicLong timeline, Map<Long, Placed> model, boolean persist,
                                      Runnable beforeCheckpoint) throws Exception {
            long start = timeline.get();
            if (persist) {
                engine.segmentWriter.persist(); // as the engine's checkpoints do: the open segment's records so far too
            }
            beforeCheckpoint.run();
            Checkpoint planned = planned(engine, timeline, model, start);
            lastResult = checkpointer.checkpoint(NO_FILES);
            if (lastResult.deltaSpaces() > 0) {
                deltaCheckpoints++;
            }
            return new Checkpoint(start, timeline.get(), planned.named(), planned.current());
        }

        /**
         * The full checkpoint under way, started at {@code start} on the timeline: the rest of its copy,
         * then (after the appender put its records on flash, as the engine's writer does) its end, a
         * delta naming what changed while it was copied, then its header. What it names is what the
         * index holds at its end: every change since its start is in the delta. Its end runs on a
         * thread of its own while the writer goes on, as in the engine: half the time this thread
         * appends and rewrites chunks meanwhile, the end held at one of its writes to space 0 until
         * they are done (so the order of writes stays the seed's); else the end is waited for, half of
         * those with a burst of appends at one of its writes.
         */
        private Checkpoint finishInSteps(EngineFixture engine, Checkpointer checkpointer, AtomicLong timeline,
                                         Map<Long, Placed> model, long start, Ends ends) throws Exception {
            while (!checkpointer.step(1 + random.nextInt(3))) {
                // the copy's last steps
            }
            if (random.nextBoolean()) {
                engine.segmentWriter.persist();
            }
            Checkpoint planned = planned(engine, timeline, model, start);
            int before = burstAppends.get();
            if (random.nextBoolean()) {
                CountDownLatch reached = new CountDownLatch(1);
                CountDownLatch release = new CountDownLatch(1);
                // The end writes space 0 at least four times: the wipe, body and header of its delta, its header.
                AtomicInteger endWrites = new AtomicInteger(1 + random.nextInt(4));
                ends.atWrite().set(() -> {
                    if (Thread.currentThread().getName().equals(END_THREAD) && endWrites.decrementAndGet() == 0) {
                        reached.countDown();
                        try {
                            assertTrue(release.await(AWAIT_SECONDS, TimeUnit.SECONDS), "the operations during the end");
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                });
                Checkpointer.Result now = checkpointer.endInBackground(NO_FILES);
                if (now == null) {
                    assertTrue(reached.await(AWAIT_SECONDS, TimeUnit.SECONDS), "the end's write to space 0");
                    for (int i = 0; i < 2 * EngineFixture.PER_SEGMENT; i++) {
                        long key = key(random.nextInt(KEYS));
                        if (random.nextInt(8) == 0) {
                            rewrite(ends.invalidations(), model, key);
                            rewrittenDuringFullEnds++;
                        } else if (append(engine, model, key, ends.discards())) {
                            appendedDuringFullEnds++;
                        }
                    }
                    release.countDown();
                    assertTrue(checkpointer.awaitEnded(AWAIT_SECONDS, TimeUnit.SECONDS), "the end");
                    now = checkpointer.completeEnd();
                }
                ends.atWrite().set(null);
                lastResult = now;
            } else {
                ends.writesUntilBurst().set(random.nextBoolean() ? 1 + random.nextInt(6) : Integer.MIN_VALUE);
                lastResult = checkpointer.finish(NO_FILES);
                ends.writesUntilBurst().set(Integer.MIN_VALUE);
                appendedDuringFullEnds += burstAppends.get() - before;
            }
            return new Checkpoint(start, timeline.get(), planned.named(), planned.current());
        }

        /**
         * What a checkpoint written from now will name: the index's entries in written parts of
         * segments (a reinserted chunk's too), and the current version of each chunk with a record of it.
         * Every record of a key the index can reach is of its current version: a rewrite takes the key
         * out, and only appends of the new bytes bring it back.
         */
        private Checkpoint planned(EngineFixture engine, AtomicLong timeline, Map<Long, Placed> model, long start) {
            Map<Long, Placed> named = new HashMap<>();
            for (int k = 0; k < KEYS; k++) {
                long key = key(k);
                long address = engine.index.find(key);
                if (address == RecordAddress.NONE) {
                    continue;
                }
                int space = RecordAddress.space(address);
                int segment = engine.table.segment(space, engine.spaces.layout(space).index(address));
                SegmentState state = engine.table.state(segment);
                boolean written = state == SegmentState.DURABLE || (state == SegmentState.OPEN
                        || state == SegmentState.SEALED)
                        && engine.spaces.layout(space).sectorInSegment(address) < engine.table.writtenSectors(segment);
                if (written) {
                    named.put(key, new Placed(address, versions.get(key)));
                }
            }
            Map<Long, Integer> current = new HashMap<>();
            model.forEach((key, placed) -> current.put(key, placed.version()));
            return new Checkpoint(start, timeline.get(), named, current);
        }
    }

    /** One cut image started by a real engine, checked, then written to and checked again. */
    private static final class CutCheck {
        final String where;
        final Map<Long, Placed> mustComeBack;
        final Map<Long, List<Integer>> allowed;
        final Map<Long, Integer> versions;
        long checkedBack;
        long served;
        long appendedAfter;
        long discardedAtStart;
        boolean fromDelta;
        /** The recovered run's first checkpoint was a delta after those recovery read, and a crash after it was checked. */
        boolean continuedDelta;
        /** The start after that crash was cut while it wrote the superblocks (and recovered from), then started again. */
        boolean crashedStart;
        /** ... and that start named the devices in the other order (a new run: its devices may lose their chunks). */
        boolean crashedStartChanged;

        CutCheck(String where, Phase phase, long t, Map<Long, Integer> versions, boolean nothingMustComeBack) {
            this.where = where;
            this.versions = versions;
            Checkpoint durable = null;
            Checkpoint running = null;
            for (Checkpoint c : phase.checkpoints()) {
                if (c.end() <= t) {
                    durable = c;
                } else if (c.start() < t) {
                    running = c;
                }
            }
            // What may be served: a version the newest complete checkpoint, or the one being written, named,
            // or a chunk's newest bytes when either started.
            allowed = new HashMap<>();
            for (Checkpoint c : new Checkpoint[] {durable, running}) {
                if (c != null) {
                    c.named().forEach((key, placed) ->
                            allowed.computeIfAbsent(key, k -> new ArrayList<>()).add(placed.version()));
                    c.current().forEach((key, version) ->
                            allowed.computeIfAbsent(key, k -> new ArrayList<>()).add(version));
                }
            }
            // What must come back: the durable one's chunks that the one being written names too.
            mustComeBack = new HashMap<>(durable == null || nothingMustComeBack ? Map.of() : durable.named());
            if (running != null) {
                Map<Long, Placed> alsoNamed = running.named();
                mustComeBack.entrySet().removeIf(e -> !e.getValue().equals(alsoNamed.get(e.getKey())));
            }
        }

        void run(MemoryDevice[] devices, SplittableRandom random) throws Exception {
            List<StorageDriver> drivers = new ArrayList<>();
            for (MemoryDevice device : devices) {
                drivers.add(new StorageDriver(device, 2, TimeUnit.SECONDS.toNanos(5)));
            }
            // Hits wait as long as the devices' other operations do: a read of a busy machine's in-memory
            // device given up after the default 200 ms would be a miss the check takes for a lost chunk.
            // Half the cuts start with discards on: every segment no checkpoint names is zeroed before
            // anything is read, so a segment taken for unnamed that a checkpoint names loses its chunks.
            boolean discard = random.nextBoolean();
            CacheEngine engine = CacheEngine.open(drivers, new CacheEngine.Settings(SEGMENT_BYTES, INDEXED_CHUNK, 0.2, 0,
                    8, 20, 8 << 20, 1 << 20, TimeUnit.DAYS.toMillis(1), false, List.of())
                            .withDiscard(java.util.Collections.nCopies(devices.length, discard)), NO_FILES, () -> 1,
                    System::nanoTime, new FlashReadPolicy(false, TimeUnit.SECONDS.toNanos(5), FlashReadGate.OPEN,
                            System::nanoTime));
            try {
                if (discard) {
                    long unnamed = 0;
                    for (int space = 0; space < engine.table().spaces(); space++) {
                        unnamed += engine.table().segmentsIn(space) - engine.table().count(space, SegmentState.DURABLE);
                    }
                    assertTrue(engine.discards().awaitEnded(unnamed, AWAIT_SECONDS, TimeUnit.SECONDS),
                            where + ": the start's discards did not end");
                    discardedAtStart += engine.discards().discarded();
                }
                fromDelta = java.util.Arrays.stream(engine.recovered().loadedDeltas()).anyMatch(p -> p > 0);
                int hits = 0;
                for (int k = 0; k < KEYS; k++) {
                    long key = key(k);
                    ByteBuffer read = read(engine, key);
                    if (read != null) {
                        assertTrue(allowed.getOrDefault(key, List.of()).stream().anyMatch(v -> chunk(key, v).equals(read)),
                                where + ": chunk " + k + " served bytes of no version a checkpoint of its cache named");
                        hits++;
                    }
                    if (mustComeBack.containsKey(key)) {
                        assertTrue(read != null, where + ": chunk " + k + " was named by the durable checkpoint and did "
                                + "not come back (at " + RecordAddress.describe(mustComeBack.get(key).address())
                                + "; the index has " + RecordAddress.describe(engine.index().find(key))
                                + "; recovery restored " + engine.recovered().restoredEntries() + " from areas "
                                + java.util.Arrays.toString(engine.recovered().loadedAreas()) + " of "
                                + java.util.Arrays.deepToString(engine.recovered().areaSequences()) + ", start "
                                + engine.start().why() + ", problems " + engine.recovered().problems() + "; refused "
                                + engine.refusedRecords() + ", damaged " + engine.damagedRecords() + ", read errors "
                                + engine.readErrors() + ")");
                        checkedBack++;
                    }
                }
                assertEquals(0, engine.refusedRecords() + engine.damagedRecords(), where + ": entries restored that "
                        + "point at another record or at damaged bytes");
                // Every entry serves its chunk, so one more entry than hits is a chunk restored twice (an
                // invalidation would take out one and leave the other).
                assertEquals(hits, engine.entries(), where + ": a chunk restored twice");
                served += hits;
                appendAfterRecovery(engine, devices, random);
            } finally {
                engine.close();
            }
        }

        /**
         * Rewrites chunks and appends their new bytes over flash full of older records, of this cache
         * and the one before: every chunk read afterwards is its newest bytes or a miss.
         */
        private void appendAfterRecovery(CacheEngine engine, MemoryDevice[] devices, SplittableRandom random)
                throws Exception {
            Map<Long, Integer> rewritten = new HashMap<>();
            java.util.Set<Long> keys = new java.util.LinkedHashSet<>();
            while (keys.size() < REWRITTEN_AFTER_RECOVERY) {
                long key = key(random.nextInt(KEYS));
                if (keys.add(key)) {
                    engine.invalidate(key);
                }
            }
            // Once the writer has taken the invalidations out of the index, the new bytes are offered.
            assertTrue(engine.awaitWritten(AWAIT_SECONDS, TimeUnit.SECONDS), where + ": the writer did not take the invalidations");
            for (long key : keys) {
                assertTrue(read(engine, key) == null, where + ": an invalidated chunk was served");
                read(engine, key); // read twice: admission weighs it above chunks never read
                int version = versions.get(key) + 1;
                if (engine.offer(key, chunk(key, version), compressible(key, version))) {
                    rewritten.put(key, version);
                }
            }
            assertTrue(engine.awaitWritten(AWAIT_SECONDS, TimeUnit.SECONDS), where + ": the writer did not take the rewrites");
            long appended = engine.stats().appended();
            Map<Long, ByteBuffer> served = new HashMap<>();
            for (int k = 0; k < KEYS; k++) {
                long key = key(k);
                ByteBuffer read = read(engine, key);
                if (read == null) {
                    continue;
                }
                served.put(key, read);
                Integer newest = rewritten.get(key);
                boolean right = newest != null ? chunk(key, newest).equals(read)
                        : allowed.getOrDefault(key, List.of()).stream().anyMatch(v -> chunk(key, v).equals(read));
                assertTrue(right, where + ": after appends, chunk " + k + " served bytes that are not its newest");
            }
            assertEquals(0, engine.refusedRecords() + engine.damagedRecords(), where + ": after appends, reads met "
                    + "another record or damaged bytes");
            appendedAfter += appended;
            if (random.nextBoolean()) { // half the cuts: each costs a checkpoint and another start
                crashAfterACheckpoint(engine, devices, keys, rewritten, served, random);
            }
        }

        /**
         * The recovered run writes a checkpoint (a delta after those recovery read, when it can go on
         * from them), and crashes right after it: every chunk it served comes back with the same bytes,
         * an invalidated chunk never with bytes from before, and no other chunk with bytes of no
         * version a checkpoint named.
         */
        private void crashAfterACheckpoint(CacheEngine engine, MemoryDevice[] devices, java.util.Set<Long> invalidated,
                                           Map<Long, Integer> rewritten, Map<Long, ByteBuffer> served,
                                           SplittableRandom random) throws Exception {
            assertTrue(engine.checkpoint(AWAIT_SECONDS, TimeUnit.SECONDS, false), where + ": the recovered run's checkpoint");
            Checkpointer.Result checkpoint = engine.lastCheckpoint();
            // Named by it: the served chunks still indexed in a segment it names (not one given up).
            java.util.Set<Long> named = new java.util.HashSet<>();
            for (long key : served.keySet()) {
                long address = engine.index().find(key);
                if (address != RecordAddress.NONE) {
                    int space = RecordAddress.space(address);
                    SegmentState state = engine.table().state(
                            engine.table().segment(space, engine.spaces().layout(space).index(address)));
                    if (state == SegmentState.DURABLE || state == SegmentState.OPEN) {
                        named.add(key);
                    }
                }
            }
            MemoryDevice[] images = new MemoryDevice[devices.length];
            for (int i = 0; i < devices.length; i++) {
                images[i] = new MemoryDevice(devices[i].path(), devices[i].image(), 8);
            }
            // Half of these: the next start is cut while it writes the superblocks (the set changed or not),
            // and the one after starts from what that cut left. With the same devices in the same order
            // nothing may be lost; with the order changed (a new run) chunks may be, never misread.
            crashedStart = random.nextBoolean();
            List<String> startCuts = new ArrayList<>();
            crashedStartChanged = crashedStart && random.nextBoolean();
            if (crashedStart) {
                if (crashedStartChanged) {
                    java.util.Collections.reverse(java.util.Arrays.asList(images));
                }
                images = cutWithinAStart(images, random, startCuts);
                if (random.nextBoolean()) { // and the start after it too
                    images = cutWithinAStart(images, random, startCuts);
                }
            }
            CacheEngine after = open(images);
            try {
                String at = where + ", then a crash after the recovered run's checkpoint " + checkpoint
                        + (crashedStart ? ", then a crash while the next start wrote the superblocks"
                                + (crashedStartChanged ? " (the devices named in the other order)" : "")
                                + " (cut at " + startCuts + ")" : "");
                int hits = 0;
                for (int k = 0; k < KEYS; k++) {
                    long key = key(k);
                    ByteBuffer read = read(after, key);
                    ByteBuffer before = served.get(key);
                    if (named.contains(key) && !crashedStartChanged) {
                        assertEquals(before, read, at + ": chunk " + k + " was served when the checkpoint was written"
                                + " (start " + after.start() + ", recovered " + after.recovered() + ")");
                    } else if (named.contains(key)) {
                        assertTrue(read == null || before.equals(read), at + ": chunk " + k + " came back changed");
                    } else if (before != null) {
                        assertTrue(read == null || before.equals(read), at + ": chunk " + k + " came back changed");
                    } else if (read != null) {
                        // An invalidated chunk comes back only with the bytes written after its invalidation: its
                        // record written, then out of the index before the crash (evicted, or displaced from a full
                        // index: compressed records fill it before the flash), and found again in a segment summary.
                        Integer newer = rewritten.get(key);
                        assertTrue(!invalidated.contains(key) || newer != null && chunk(key, newer).equals(read),
                                at + ": chunk " + k + " was invalidated and came back with bytes from before");
                        assertTrue(invalidated.contains(key)
                                        || allowed.getOrDefault(key, List.of()).stream().anyMatch(v -> chunk(key, v).equals(read)),
                                at + ": chunk " + k + " served bytes of no version a checkpoint of its cache named");
                    }
                    hits += read == null ? 0 : 1;
                }
                assertEquals(0, after.refusedRecords() + after.damagedRecords(), at + ": entries restored that point "
                        + "at another record or at damaged bytes");
                assertEquals(hits, after.entries(), at + ": a chunk restored twice");
                continuedDelta = checkpoint.deltaSpaces() > 0;
                checkedBack += crashedStartChanged ? 0 : named.size();
            } finally {
                after.close();
            }
        }

        private static CacheEngine open(MemoryDevice... devices) throws Exception {
            List<StorageDriver> drivers = new ArrayList<>();
            for (var device : devices) {
                drivers.add(new StorageDriver(device, 2, TimeUnit.SECONDS.toNanos(5)));
            }
            return CacheEngine.open(drivers, new CacheEngine.Settings(SEGMENT_BYTES, INDEXED_CHUNK, 0.2, 0,
                    8, 20, 8 << 20, 1 << 20, TimeUnit.DAYS.toMillis(1), false, List.of()), NO_FILES, () -> 1,
                    System::nanoTime, new FlashReadPolicy(false, TimeUnit.SECONDS.toNanos(5), FlashReadGate.OPEN,
                            System::nanoTime));
        }

        /**
         * What a power cut leaves while a start on {@code devices} writes their superblocks: the start
         * runs to its end (its superblock writes, the recovery between them, those that reserve and
         * settle its sequences), and the cut falls at one of its writes or flushes, each device's
         * unflushed writes kept or lost at random.
         */
        private MemoryDevice[] cutWithinAStart(MemoryDevice[] devices, SplittableRandom random, List<String> cuts)
                throws Exception {
            AtomicLong timeline = new AtomicLong();
            PowerCutDevice[] cut = new PowerCutDevice[devices.length];
            List<StorageDriver> drivers = new ArrayList<>();
            for (int i = 0; i < devices.length; i++) {
                cut[i] = PowerCutDevice.of(devices[i].path(), devices[i].image(), 8, timeline);
                drivers.add(new StorageDriver(cut[i], 2, TimeUnit.SECONDS.toNanos(5)));
            }
            CacheEngine starting = CacheEngine.open(drivers, new CacheEngine.Settings(SEGMENT_BYTES, INDEXED_CHUNK, 0.2, 0,
                    8, 20, 8 << 20, 1 << 20, TimeUnit.DAYS.toMillis(1), false, List.of()), NO_FILES, () -> 1,
                    System::nanoTime, new FlashReadPolicy(false, TimeUnit.SECONDS.toNanos(5), FlashReadGate.OPEN,
                            System::nanoTime));
            long started = timeline.get();
            starting.close();
            long t = random.nextLong(started + 1);
            cuts.add(t + " of " + started);
            MemoryDevice[] images = new MemoryDevice[devices.length];
            for (int i = 0; i < devices.length; i++) {
                images[i] = new MemoryDevice(devices[i].path(), cut[i].crashImage(cut[i].cutAt(t), random), 8);
            }
            return images;
        }

        private static ByteBuffer read(CacheEngine engine, long key) {
            ByteBuffer into = ByteBuffer.allocate(CHUNK);
            return engine.read(key, CHUNK, into) == -1 ? null : into.flip();
        }
    }
}

package io.flashchunk.cache.compact;

import static io.flashchunk.cache.compact.CompactEngineFixture.FIRST_BYTE;
import static io.flashchunk.cache.compact.CompactEngineFixture.SEGMENT_BYTES;
import static io.flashchunk.cache.compact.CompactEngineFixture.chunk;
import static io.flashchunk.cache.compact.CompactEngineFixture.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The power-cut simulator over the compact engine: one seeded history of reads, appends, reclaims
 * (reinserting read chunks), checkpoints (half of them with the writer appending after the index was
 * copied) and flushes on two devices with volatile write caches, cut at many moments (half anywhere,
 * half in or just before a checkpoint) into an image a power cut could leave (PowerCutDevice), each
 * recovered by a fresh engine. No chunk may be served with another's bytes, no restored entry may
 * point at another record, and every chunk the newest complete checkpoint names, and the one being
 * written at the cut (if any) names too, must come back; a broken promise throws. CI runs one seed
 * ({@link CompactPowerCutTest}); {@code scripts/sim-power-cut.sh} runs many through {@link #main}.
 */
public final class CompactPowerCutSimulation {
    private static final UUID INSTANCE = UUID.randomUUID();
    private static final NamedFiles NO_FILES = CompactEngineFixture.NO_FILES;
    private static final int KEYS = 500;
    private static final int SEGMENTS = 5;

    /** A checkpoint of the history: the timeline before and after it, and the chunks it named with their addresses. */
    private record Checkpoint(long start, long end, Map<Long, Long> named) {
    }

    /** What one seed's history did and what its cuts checked ({@code cuts}: the images recovered). */
    record Result(long seed, int operations, int cuts, int checkpoints, long reclaimed, long reinserted,
                  int appendedDuringCheckpoints, long chunksServed, long checkedBack) {
    }

    private CompactPowerCutSimulation() {
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
                r = simulate(seed, operations, cuts, TimeUnit.MICROSECONDS.toNanos(lateMicros));
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
                            + "\"chunks_served\": %d, \"named_by_the_durable_checkpoint\": %d, \"problems\": 0, "
                            + "\"seconds\": %.1f}%n", r.seed(), r.operations(), r.cuts(), r.checkpoints(), r.reclaimed(),
                    r.reinserted(), r.appendedDuringCheckpoints(), r.chunksServed(), r.checkedBack(),
                    (System.nanoTime() - start) / 1e9);
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
        long blocks = (FIRST_BYTE + (long) SEGMENTS * SEGMENT_BYTES) / BlockDevice.BLOCK_SIZE;
        PowerCutDevice a = PowerCutDevice.blank("a", blocks, 8, timeline);
        PowerCutDevice b = PowerCutDevice.blank("b", blocks, 8, timeline);
        if (maxLateNanos > 0) {
            a.completeLate(maxLateNanos, seed);
            b.completeLate(maxLateNanos, ~seed);
        }
        // Device a runs a burst of appends inside a checkpoint's body write when armed: the writer
        // going on after the index was copied, reclaiming segments the checkpoint names.
        FaultyDevice faultyA = new FaultyDevice(a);
        CompactEngineFixture engine = new CompactEngineFixture(TimeUnit.SECONDS.toNanos(5), tinyLfu, false,
                new WriterPolicy(null, 0.2), faultyA, b);
        CompactCheckpointer checkpointer = engine.checkpointer(INSTANCE);
        Map<Long, Long> model = new HashMap<>(); // key -> the address the writer put it at
        List<Checkpoint> checkpoints = new ArrayList<>();
        AtomicInteger writesUntilBurst = new AtomicInteger(Integer.MIN_VALUE);
        AtomicInteger burstAppends = new AtomicInteger();
        faultyA.delay(FaultyDevice.Op.WRITE, () -> {
            if (writesUntilBurst.decrementAndGet() == 0) {
                for (int i = 0; i < 3 * CompactEngineFixture.PER_SEGMENT; i++) {
                    long key = key(random.nextInt(KEYS));
                    if (engine.writer.append(key, chunk(key))) {
                        model.put(key, engine.index.find(key));
                        burstAppends.incrementAndGet();
                    }
                }
            }
        });
        for (int op = 0; op < operations; op++) {
            double what = random.nextDouble();
            if (what < 0.15) {
                long key = key(random.nextInt(KEYS));
                ByteBuffer read = engine.read(key); // a hit marks the chunk for reinsertion
                assertTrue(read == null || read.equals(chunk(key)), "before any cut, chunk " + key);
            } else if (what < 0.93) {
                long key = key(random.nextInt(KEYS));
                if (!engine.writer.append(key, chunk(key))) {
                    checkpoints.add(checkpoint(engine, checkpointer, timeline, model, random.nextBoolean(), () -> { }));
                    assertTrue(engine.writer.append(key, chunk(key)), "after a checkpoint");
                }
                model.put(key, engine.index.find(key));
            } else if (what < 0.97) {
                // Half the checkpoints: a burst at device a's second write, the body, after the copy.
                int burstAt = random.nextBoolean() ? 2 : Integer.MIN_VALUE;
                checkpoints.add(checkpoint(engine, checkpointer, timeline, model, random.nextBoolean(),
                        () -> writesUntilBurst.set(burstAt)));
                writesUntilBurst.set(Integer.MIN_VALUE);
            } else {
                engine.writer.flush();
            }
        }
        assertTrue(checkpoints.size() > 20 && engine.writer.reclaimed() > 20 && burstAppends.get() > 100
                        && engine.writer.reinserted() > 20, checkpoints.size() + " checkpoints, "
                        + engine.writer.reclaimed() + " reclaimed, " + engine.writer.reinserted() + " reinserted, "
                        + burstAppends.get() + " appended while a checkpoint ran");
        // The crash images assume each write lands after the ones before it that it overlaps.
        assertEquals(0, a.overlappingWrites() + b.overlappingWrites(), "writes of the same blocks in flight at once");
        long end = timeline.get();
        long checkedBack = 0;
        long served = 0;
        for (int i = 0; i <= cuts; i++) {
            // Half the cuts anywhere, half around a checkpoint: in it or in the writes just before it.
            Checkpoint near = checkpoints.get(random.nextInt(checkpoints.size()));
            long t = i % 2 == 0 ? end * i / cuts
                    : Math.max(0, near.start() - 30 + random.nextLong(near.end() - near.start() + 31));
            MemoryDevice cutA = new MemoryDevice("a", a.crashImage(a.cutAt(t), random), 8);
            MemoryDevice cutB = new MemoryDevice("b", b.crashImage(b.cutAt(t), random), 8);
            CompactEngineFixture after = new CompactEngineFixture(TimeUnit.SECONDS.toNanos(5), false, false, cutA, cutB);
            CompactRecovery.Outcome outcome = after.recover(INSTANCE, () -> 1);
            Map<Long, Long> mustComeBack = mustComeBack(checkpoints, t);
            int hits = 0;
            for (int k = 0; k < KEYS; k++) {
                long key = key(k);
                ByteBuffer read = after.read(key);
                String where = "seed " + seed + ", cut at " + t + " of " + end + ", chunk " + k;
                if (read != null) {
                    assertEquals(chunk(key), read, where + " served another chunk's bytes");
                    hits++;
                }
                if (mustComeBack.containsKey(key)) {
                    assertTrue(read != null, where + " was named by the durable checkpoint and did not come back (at "
                            + RecordAddress.describe(mustComeBack.get(key)) + "; the index has "
                            + RecordAddress.describe(after.index.find(key)) + "; recovery restored " + outcome.restoredEntries()
                            + ", problems " + outcome.problems() + ")");
                    checkedBack++;
                }
            }
            assertEquals(0, after.mismatches, "seed " + seed + ", cut at " + t + ": entries restored that point at "
                    + "another record");
            // Every entry serves its chunk, so one more entry than hits is a chunk restored twice (an
            // invalidation would take out one and leave the other).
            assertEquals(hits, after.index.entries(), "seed " + seed + ", cut at " + t + ": a chunk restored twice");
            served += hits;
        }
        return new Result(seed, operations, cuts + 1, checkpoints.size(), engine.writer.reclaimed(), engine.writer.reinserted(),
                burstAppends.get(), served, checkedBack);
    }

    private static Checkpoint checkpoint(CompactEngineFixture engine, CompactCheckpointer checkpointer,
                                         AtomicLong timeline, Map<Long, Long> model, boolean persist,
                                         Runnable beforeCheckpoint) throws Exception {
        long start = timeline.get();
        if (persist) {
            engine.writer.persist(); // as the engine's checkpoints do: the open segment's records so far too
        }
        beforeCheckpoint.run();
        Map<Long, Long> named = new HashMap<>();
        for (Map.Entry<Long, Long> entry : model.entrySet()) {
            long address = entry.getValue();
            int space = RecordAddress.space(address);
            int segment = engine.table.segment(space, engine.layouts[space].index(address));
            SegmentState state = engine.table.state(segment);
            boolean written = state == SegmentState.DURABLE || (state == SegmentState.OPEN || state == SegmentState.SEALED)
                    && engine.layouts[space].sectorInSegment(address) < engine.table.writtenSectors(segment);
            if (engine.index.find(entry.getKey()) == address && written) {
                named.put(entry.getKey(), address);
            }
        }
        checkpointer.checkpoint(NO_FILES);
        return new Checkpoint(start, timeline.get(), named);
    }

    /**
     * What a cut at {@code t} must bring back: the chunks the newest checkpoint complete by then
     * named, less any the checkpoint being written at the cut left out (a space may recover from it).
     */
    private static Map<Long, Long> mustComeBack(List<Checkpoint> checkpoints, long t) {
        Checkpoint durable = null;
        Checkpoint running = null;
        for (Checkpoint c : checkpoints) {
            if (c.end() <= t) {
                durable = c;
            } else if (c.start() < t) {
                running = c;
            }
        }
        if (durable == null) {
            return Map.of();
        }
        Map<Long, Long> back = new HashMap<>(durable.named());
        if (running != null) {
            Map<Long, Long> alsoNamed = running.named();
            back.entrySet().removeIf(e -> !e.getValue().equals(alsoNamed.get(e.getKey())));
        }
        return back;
    }
}

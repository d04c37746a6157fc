package io.flashchunk.cache;

import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.cache.index.ChunkEntry;
import io.flashchunk.cache.index.ChunkKeys;
import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.FaultyDevice;
import io.flashchunk.testing.MemoryDevice;
import io.flashchunk.testing.PowerCutDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The power-cut simulator: a cache runs a random workload (puts, reads, invalidations, files deleted
 * and written again, evictions by weight, migrations, checkpoints, some of them failing) on
 * {@link PowerCutDevice}s; then, for many points of that history, the images a power cut there
 * could leave are recovered by a new cache and checked against a model kept by this class alone:
 * <ul>
 *   <li>safety: every chunk served has the bytes of the file now at its path, and no recovered entry
 *       points at blocks that hold something else (no checksum error);</li>
 *   <li>liveness: every chunk that each checkpoint recovery could have loaded names (the last one that
 *       returned before the cut, and any begun after it) comes back, unless its file was replaced
 *       since, or recovery filled the index (spaces that load checkpoints of different moments can
 *       name more than it holds); and reading recovered chunks evicts none of them.</li>
 * </ul>
 * The workload runs in one thread and waits for the write queue before each checkpoint, so what a
 * checkpoint names is exactly what the cache served just before it (the model's snapshot).
 */
final class PowerCutSimulation {
    static final int CHUNK = 16384;
    private static final int FILES = 8;
    private static final int CHUNKS_PER_FILE = 64;
    private static final int DEVICES = 2;
    // 2 MiB each, less checkpoint areas and reserve: the 8 MiB working set does not fit, so chunks are
    // evicted by weight all along.
    private static final long DEVICE_BLOCKS = 512;

    /** One checkpoint attempt: when it began and ended (on the devices' timeline), what it names. */
    private record Attempt(long begun, long ended, boolean returned, Map<Long, Integer> names, int[] generations) {
    }

    /** What the simulation found. */
    record Result(int cuts, long chunksChecked, long chunksServed, long expectedBack, int fullRecoveries,
                  int checkpoints, int failedCheckpoints, CacheStats history, List<String> problems) {
    }

    private final Path dataDir;
    private final SplittableRandom random;
    private final int[] generation = new int[FILES];
    private final List<PowerCutDevice> devices = new ArrayList<>();
    private final List<FaultyDevice> faulty = new ArrayList<>();
    private final List<Attempt> attempts = new ArrayList<>();
    // Every device stamps its writes and flushes here: a cut is one moment of it.
    private final AtomicLong timeline = new AtomicLong();
    private CacheStats history;

    PowerCutSimulation(Path dataDir, long seed) {
        this.dataDir = dataDir;
        this.random = new SplittableRandom(seed);
    }

    static long key(int file, int chunk) {
        return (long) file << 32 | chunk;
    }

    private Path path(int file) {
        return dataDir.resolve("nb-" + file + "-big-Data.db");
    }

    private static long seed(int file, int generation) {
        return 1_000L * file + generation;
    }

    private void writeFile(int file) throws IOException {
        Files.deleteIfExists(path(file));
        Files.write(path(file), new byte[] {(byte) file, (byte) generation[file]});
    }


    private CacheConfig.Builder settings(CacheConfig.Builder builder) {
        return builder.maintenanceIntervalMillis(3_600_000).checkpointIntervalMillis(3_600_000)
                .minCheckpointIntervalMillis(3_600_000).checkpointChangePercent(0).readTimeoutMillis(10_000)
                .rebalanceFactor(1.01).allocationWaitMillis(5);
    }

    /** Runs {@code operations} random operations, recording everything the checks need. */
    void run(int operations) throws Exception {
        for (int f = 0; f < FILES; f++) {
            writeFile(f);
        }
        CacheConfig.Builder builder = settings(CacheConfig.builder());
        List<BlockDevice> opened = new ArrayList<>();
        for (int d = 0; d < DEVICES; d++) {
            PowerCutDevice device = PowerCutDevice.blank("sim-device-" + d, DEVICE_BLOCKS, 16, timeline);
            FaultyDevice wrapper = new FaultyDevice(device);
            devices.add(device);
            faulty.add(wrapper);
            opened.add(wrapper);
            builder.device(io.flashchunk.device.DeviceSpec.of(Path.of("/sim/device-" + d)));
        }
        try (FlashChunkCache cache = new FlashChunkCache(builder.build(), opened)) {
            CachedFile[] files = new CachedFile[FILES];
            for (int f = 0; f < FILES; f++) {
                files[f] = cache.registerFile(path(f));
            }
            for (int op = 0; op < operations; op++) {
                int f = random.nextInt(FILES);
                int c = random.nextInt(CHUNKS_PER_FILE);
                int kind = random.nextInt(100);
                if (kind < 60) {
                    cache.put(files[f], (long) c * CHUNK, ChunkContent.buffer(seed(f, generation[f]), (long) c * CHUNK, CHUNK));
                } else if (kind < 84) {
                    CachedChunk chunk = cache.get(files[f], (long) c * CHUNK);
                    if (chunk != null) {
                        byte[] bytes = ChunkContent.read(chunk);
                        chunk.release();
                        if (!java.util.Arrays.equals(bytes, ChunkContent.bytes(seed(f, generation[f]), (long) c * CHUNK, CHUNK))) {
                            throw new AssertionError("the running cache served wrong bytes for file " + f + " chunk " + c);
                        }
                    }
                } else if (kind < 87) {
                    cache.invalidatePosition(files[f], (long) c * CHUNK);
                } else if (kind < 88) {
                    generation[f]++;
                    writeFile(f); // deleted and written again: ext4 often hands it the old inode
                    files[f] = cache.registerFile(path(f));
                } else if (kind < 91) {
                    cache.runMaintenance();
                } else if (kind < 97) {
                    checkpoint(cache, files, false);
                } else {
                    checkpoint(cache, files, true);
                }
            }
            checkpoint(cache, files, false);
            history = cache.stats();
        }
    }

    /** The chunks the cache serves now (pending evictions done first), with the space each is on. */
    private static Map<Long, Integer> served(FlashChunkCache cache, CachedFile[] files) {
        cache.cleanUp();
        Map<Long, Integer> served = new HashMap<>();
        for (int f = 0; f < FILES; f++) {
            for (int c = 0; c < CHUNKS_PER_FILE; c++) {
                CachedChunk chunk = cache.get(files[f], (long) c * CHUNK);
                if (chunk != null) {
                    chunk.release();
                    ChunkEntry entry = cache.index().peek(ChunkKeys.key(files[f].id(), (long) c * CHUNK));
                    served.put(key(f, c), entry == null ? -1 : ChunkLocation.space(entry.location()));
                }
            }
        }
        cache.cleanUp();
        return served;
    }

    private void checkpoint(FlashChunkCache cache, CachedFile[] files, boolean failing) throws Exception {
        FlashChunkCacheTest.await("the write queue", () -> cache.stats().queuedChunks() == 0);
        // Nothing is put meanwhile: a chunk served both before and after was in the index throughout,
        // so the checkpoint names it.
        Map<Long, Integer> names = served(cache, files);
        if (failing) {
            // One device's second flush fails: its header is written, and may land all the same.
            faulty.get(random.nextInt(DEVICES)).failNth(FaultyDevice.Op.FLUSH, 2);
        }
        long begun = timeline.get();
        boolean returned;
        try {
            cache.checkpoint();
            returned = true;
        } catch (IOException e) {
            returned = false;
        }
        names.entrySet().retainAll(served(cache, files).entrySet());
        attempts.add(new Attempt(begun, timeline.get(), returned, names, generation.clone()));
    }

    /** Checks {@code cuts} cut points spread over the history, each with its own random image. */
    Result check(int cuts) throws Exception {
        List<String> problems = new ArrayList<>();
        int fullRecoveries = 0;
        long checked = 0;
        long served = 0;
        long expectedBack = 0;
        long end = timeline.get();
        for (int i = 0; i < cuts; i++) {
            // Every device cut at one moment of the shared timeline, spread evenly over the history.
            long cut0 = end * i / Math.max(1, cuts - 1);
            List<BlockDevice> images = new ArrayList<>();
            CacheConfig.Builder builder = settings(CacheConfig.builder());
            for (int d = 0; d < DEVICES; d++) {
                PowerCutDevice device = devices.get(d);
                images.add(new MemoryDevice("sim-device-" + d, device.crashImage(device.cutAt(cut0), random), 16));
                builder.device(io.flashchunk.device.DeviceSpec.of(Path.of("/sim/device-" + d)));
            }
            try (FlashChunkCache cache = new FlashChunkCache(builder.build(), images, false)) {
                // Spaces that load checkpoints of different moments can name more than the index holds;
                // recovery then keeps what fits, and which named chunks stay behind is its choice.
                boolean full = (cache.stats().recoveredEntries() + 1) * CHUNK > cache.capacityBytes();
                Set<Long> mustReturn = mustReturn(cut0);
                List<String> missing = new ArrayList<>();
                expectedBack += mustReturn.size();
                for (int f = 0; f < FILES; f++) {
                    CachedFile file = cache.registerFile(path(f));
                    for (int c = 0; c < CHUNKS_PER_FILE; c++) {
                        checked++;
                        CachedChunk chunk = cache.get(file, (long) c * CHUNK);
                        if (chunk == null) {
                            if (mustReturn.contains(key(f, c))) {
                                missing.add("cut " + cut0 + ": file " + f + " chunk " + c + " was named by every "
                                        + "checkpoint recovery could load, its file unchanged, and did not come back");
                            }
                            continue;
                        }
                        served++;
                        byte[] bytes = ChunkContent.read(chunk);
                        chunk.release();
                        if (!java.util.Arrays.equals(bytes, ChunkContent.bytes(seed(f, generation[f]), (long) c * CHUNK, CHUNK))) {
                            problems.add("cut " + cut0 + ": WRONG BYTES for file " + f + " chunk " + c);
                        }
                    }
                }
                if (!missing.isEmpty() && full) {
                    fullRecoveries++; // recovery kept what the index holds; which named chunks stayed behind is its choice
                } else {
                    problems.addAll(missing);
                }
                if (cache.stats().evictions() + cache.stats().staleReads() > 0) {
                    problems.add("cut " + cut0 + ": reading recovered chunks evicted " + cache.stats().evictions()
                            + " of them (" + cache.stats().staleReads() + " reads missed for it)");
                }
                if (!problems.isEmpty() && problems.get(problems.size() - 1).startsWith("cut " + cut0 + ":")) {
                    problems.add("cut " + cut0 + ": the recovering cache then: " + cache.stats());
                }
                if (cache.stats().checksumErrors() > 0) {
                    problems.add("cut " + cut0 + ": " + cache.stats().checksumErrors() + " recovered entries pointed at "
                            + "blocks holding other bytes");
                }
            }
        }
        long failed = attempts.stream().filter(a -> !a.returned()).count();
        return new Result(cuts, checked, served, expectedBack, fullRecoveries, attempts.size(), (int) failed, history,
                problems);
    }

    /**
     * Chunks every checkpoint that recovery might load names, on the same space: the last attempt that
     * returned before the cut and every attempt begun since, minus chunks of files replaced after the
     * first of them. (Each space loads its own newest valid checkpoint; a chunk that moved between
     * spaces between two of them may be named by neither loaded one, and its loss is no error.)
     */
    private Set<Long> mustReturn(long cut) {
        int last = -1;
        for (int a = 0; a < attempts.size(); a++) {
            if (attempts.get(a).returned() && attempts.get(a).ended() <= cut) {
                last = a;
            }
        }
        if (last < 0) {
            return Set.of();
        }
        Set<Map.Entry<Long, Integer>> same = new HashSet<>(attempts.get(last).names().entrySet());
        for (int a = last + 1; a < attempts.size() && attempts.get(a).begun() < cut; a++) {
            same.retainAll(attempts.get(a).names().entrySet());
        }
        Set<Long> must = new HashSet<>();
        same.forEach(named -> must.add(named.getKey()));
        int[] namedGenerations = attempts.get(last).generations();
        must.removeIf(key -> namedGenerations[(int) (key >>> 32)] != generation[(int) (key >>> 32)]);
        return must;
    }

    /**
     * The long run (scripts/sim-power-cut.sh): {@code --seeds N --cuts M --operations K --first-seed S
     * --dir D}. One JSON line per seed on stdout, progress on stderr; exit status 1 if any seed found a
     * problem.
     */
    public static void main(String[] args) throws Exception {
        int seeds = 10;
        int cuts = 1000;
        int operations = 1500;
        long firstSeed = 1;
        Path dir = Path.of("target/sim");
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--seeds" -> seeds = Integer.parseInt(args[i + 1]);
                case "--cuts" -> cuts = Integer.parseInt(args[i + 1]);
                case "--operations" -> operations = Integer.parseInt(args[i + 1]);
                case "--first-seed" -> firstSeed = Long.parseLong(args[i + 1]);
                case "--dir" -> dir = Path.of(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Files.createDirectories(dir);
        boolean clean = true;
        for (long seed = firstSeed; seed < firstSeed + seeds; seed++) {
            Path dataDir = Files.createTempDirectory(dir, "sim");
            long start = System.nanoTime();
            PowerCutSimulation simulation = new PowerCutSimulation(dataDir, seed);
            simulation.run(operations);
            Result result = simulation.check(cuts);
            try (var files = Files.list(dataDir)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(dataDir);
            clean &= result.problems().isEmpty();
            CacheStats history = result.history();
            System.out.printf("{\"seed\": %d, \"operations\": %d, \"cuts\": %d, \"chunks_checked\": %d, "
                    + "\"chunks_served\": %d, \"named_by_every_loadable_checkpoint\": %d, \"full_recoveries\": %d, "
                    + "\"checkpoints\": %d, "
                    + "\"failed_checkpoints\": %d, \"evictions\": %d, \"invalidations\": %d, \"migrations\": %d, "
                    + "\"problems\": %d, \"seconds\": %.1f}%n", seed, operations, result.cuts(), result.chunksChecked(),
                    result.chunksServed(), result.expectedBack(), result.fullRecoveries(), result.checkpoints(),
                    result.failedCheckpoints(),
                    history.evictions(), history.invalidations(), history.migrations(), result.problems().size(),
                    (System.nanoTime() - start) / 1e9);
            System.err.printf("seed %d of %d: %d cut points, %d problems%s%n", seed - firstSeed + 1, seeds, result.cuts(),
                    result.problems().size(), result.problems().isEmpty() ? "" : " (first: " + result.problems().get(0) + ")");
            if (Boolean.getBoolean("flashchunk.sim.verbose")) {
                result.problems().forEach(System.err::println);
            }
        }
        System.exit(clean ? 0 : 1);
    }
}

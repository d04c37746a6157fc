package io.flashchunk.bench;

import io.flashchunk.buffer.AlignedBufferPool;
import io.flashchunk.cache.CacheConfig;
import io.flashchunk.cache.CacheInternals;
import io.flashchunk.cache.CacheStats;
import io.flashchunk.cache.CachedChunk;
import io.flashchunk.cache.ChunkContent;
import io.flashchunk.cache.FlashCache;
import io.flashchunk.cache.SegmentFlashCache;
import io.flashchunk.cache.checkpoint.Checkpointer;
import io.flashchunk.cache.engine.CacheEngine;
import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.ChunkKeys;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.cache.files.FileRegistry;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.index.ChunkLocations;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Benchmarks of the cache core, each printing JSON lines (one per measurement) for
 * scripts/bench-cache.sh to tabulate. Not tests: numbers, not verdicts.
 */
@Command(name = "cache-bench", mixinStandardHelpOptions = true,
        subcommands = {CacheBench.EngineHeap.class, CacheBench.Hits.class, CacheBench.EngineCheckpoint.class,
            CacheBench.EngineWrites.class, CacheBench.WriterDuringFullCheckpoint.class, CacheBench.DeadFileSweepCost.class})
public final class CacheBench {
    /** The record sector of every device the benchmarks use (each under 4 TiB). */
    private static final int SECTOR = io.flashchunk.cache.format.RecordAddress.MIN_SECTOR_BYTES;

    public static void main(String[] args) {
        System.exit(new CommandLine(new CacheBench()).execute(args));
    }

    static Path sparseFile(Path dir, String name, long bytes) throws Exception {
        Files.createDirectories(dir);
        Path file = dir.resolve(name);
        Files.deleteIfExists(file);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(bytes);
        }
        return file;
    }

    /** This process's user and system CPU in the kernel's clock ticks (/proc/self/stat, fields 14 and 15). */
    static long[] userAndSystemTicks() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            // After the command's name (in brackets, which may hold spaces) come the fields from the third on.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return new long[] {Long.parseLong(fields[11]), Long.parseLong(fields[12])};
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /**
     * Memory per cached chunk of the engine (issue 15): its index, segment table and reclaim
     * order filled as the segment writer leaves them after writing that many chunks (without moving
     * the chunks' bytes: they live on flash and cost no memory), heap measured after full GCs as in
     * {@link Heap#usedHeapAfterGc}, plus the two segment buffers (direct memory).
     */
    @Command(name = "compact-heap", description = "Memory per cached chunk of the engine.")
    static final class EngineHeap implements Callable<Integer> {
        @Option(names = "--entries", defaultValue = "10000000")
        long entries;

        @Option(names = "--chunk-bytes", defaultValue = "16384")
        int chunkBytes;

        @Option(names = "--segment-mib", defaultValue = "16")
        int segmentMib;

        @Option(names = "--files", defaultValue = "1000")
        int files;

        @Option(names = "--sketch-counters", defaultValue = "auto",
                description = "admission sketch counters a row per chunk (auto: as the engine takes it, 4 bytes a "
                        + "chunk; 1: 2 bytes a chunk; 0: no sketch)")
        String sketchCounters;

        @Option(names = "--doorkeeper-bits", defaultValue = "8",
                description = "bits a chunk of the sketch's doorkeeper (8: 1 byte a chunk, the default; 0: none)")
        int doorkeeperBits;

        @Override
        public Integer call() throws Exception {
            int segmentBytes = segmentMib << 20;
            int perSegment = (segmentBytes - io.flashchunk.cache.format.SegmentSummary.bytes(0))
                    / (RecordFormat.recordBytes(chunkBytes, SECTOR)
                    + io.flashchunk.cache.format.SegmentSummary.ENTRY_BYTES);
            int segments = Math.toIntExact((entries + perSegment - 1) / perSegment);
            long before = Heap.usedHeapAfterGc();
            FileRegistry registry = new FileRegistry();
            var layout = new io.flashchunk.cache.format.SegmentLayout(1 << 20, segmentBytes, segments, SECTOR);
            var table = new io.flashchunk.cache.space.SegmentTable(segments);
            var order = new io.flashchunk.cache.reclaim.TinyLfuReclaimOrder(segments, Math.max(1, segments - 2));
            var index = new io.flashchunk.cache.index.ChunkIndex(entries);
            // Each segment's live count and each file's extent, as the engine's writer keeps them.
            var segmentEntries = new io.flashchunk.cache.index.SegmentEntries(segments,
                    address -> layout.contains(address) ? table.segment(0, layout.index(address)) : -1);
            var locations = new ChunkLocations(index, segmentEntries);
            var sweep = new io.flashchunk.cache.reclaim.DeadFileSweep(locations);
            int counters = sketchCounters.equals("auto")
                    ? io.flashchunk.cache.admission.VictimAdmission.DEFAULT_SKETCH_COUNTERS
                    : Integer.parseInt(sketchCounters);
            var admission = counters > 0 ? new io.flashchunk.cache.admission.VictimAdmission(entries, counters,
                    doorkeeperBits, CacheConfig.DEFAULT_ADMISSION_SAMPLE_READS, key -> true) : null;
            var samples = new io.flashchunk.cache.reclaim.SegmentSamples(segments);
            List<CachedFile> cachedFiles = new ArrayList<>();
            for (int f = 0; f < files; f++) {
                cachedFiles.add(registry.register(new FileIdentity("/data/ks/table/nb-" + f + "-big-Data.db",
                        1L << 40, f, f, f, f), replaced -> { }));
            }
            long perFile = (entries + files - 1) / files;
            int recordSectors = RecordFormat.recordBytes(chunkBytes, SECTOR) / SECTOR;
            long displaced = 0;
            for (int segment = 0; segment < segments; segment++) {
                table.open(0);
                for (int r = 0; r < perSegment; r++) {
                    long i = (long) segment * perSegment + r;
                    if (i >= entries) {
                        break;
                    }
                    CachedFile cachedFile = cachedFiles.get((int) (i / perFile));
                    long key = ChunkKeys.key(cachedFile.id(), (i % perFile) * chunkBytes);
                    displaced += locations.placed(key, layout.address(0, segment, r * recordSectors)) == 0 ? 0 : 1;
                    samples.appended(segment, key);
                    sweep.onFlash(key);
                    if (admission != null) {
                        admission.accessed(key);
                    }
                }
                table.seal(segment);
                table.written(segment);
                order.written(segment);
            }
            long after = Heap.usedHeapAfterGc();
            long direct = 2L * io.flashchunk.cache.write.SegmentBuffer.windowFor(segmentBytes);
            String histogram = Heap.classHistogram();
            long size = index.entries();
            System.out.printf(Locale.ROOT, "{\"bench\":\"compact-heap\",\"entries\":%d,\"chunk_bytes\":%d,"
                            + "\"segment_bytes\":%d,\"segments\":%d,\"files\":%d,\"sketch_counters\":%d,\"sketch_bytes\":%d,"
                            + "\"displaced\":%d,\"heap_bytes\":%d,"
                            + "\"direct_bytes\":%d,\"heap_per_chunk\":%.2f,\"bytes_per_chunk\":%.2f,\"top_classes\":%s}%n",
                    size, chunkBytes, segmentBytes, segments, files, counters, admission == null ? 0 : admission.bytes(),
                    displaced,
                    after - before, direct,
                    (after - before) / (double) size, (after - before + direct) / (double) size, histogram);
            // Keep everything reachable until measured.
            if (registry.liveFiles() < 0 || table.segments() < 0 || order.victim() < -1 || samples.of(0).length < 0
                    || segmentEntries.liveTotal() != size || sweep.filesKnown() != files
                    || (admission != null && admission.frequency(0) < 0)) {
                throw new IllegalStateException();
            }
            return 0;
        }
    }

    /** Heap measurements of {@link EngineHeap}. */
    static final class Heap {
        private Heap() {
        }

        static long usedHeapAfterGc() throws InterruptedException {
            for (int i = 0; i < 4; i++) {
                System.gc();
                Thread.sleep(200);
            }
            return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        }

        /** The ten largest classes by live bytes, from jcmd GC.class_histogram on this very JVM. */
        static String classHistogram() throws Exception {
            Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
            Process process = new ProcessBuilder(jcmd.toString(), String.valueOf(ProcessHandle.current().pid()),
                    "GC.class_histogram").redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(60, TimeUnit.SECONDS);
            StringBuilder json = new StringBuilder("[");
            int rows = 0;
            for (String line : output.split("\n")) {
                String[] cells = line.trim().split("\\s+");
                if (cells.length >= 4 && cells[0].endsWith(":") && rows < 10) {
                    json.append(rows++ == 0 ? "" : ",").append(String.format(Locale.ROOT,
                            "{\"class\":\"%s\",\"instances\":%s,\"bytes\":%s}", cells[3], cells[1], cells[2]));
                }
            }
            return json.append(']').toString();
        }
    }

    /** Hit throughput through the cache against bare device reads of the same size, same device, same run. */
    @Command(name = "hits", description = "Cache hit throughput vs bare device reads.")
    static final class Hits implements Callable<Integer> {
        @Option(names = "--chunk-bytes", defaultValue = "65536")
        int chunkBytes;

        @Option(names = "--chunks", defaultValue = "16384")
        int chunks;

        @Option(names = "--threads", split = ",", defaultValue = "1,2,8,32")
        int[] threads;

        @Option(names = "--seconds", defaultValue = "5")
        int seconds;

        @Option(names = "--repeat", defaultValue = "2")
        int repeat;

        @Option(names = "--queue-depth", defaultValue = "32")
        int queueDepth;

        @Option(names = "--dir", defaultValue = "target/bench")
        Path dir;

        @Option(names = "--fio", defaultValue = "fio",
                description = "fio, run beside the hits with libaio and io_uring at the same queue depth; none: not run")
        String fio;

        @Option(names = "--profile-dir",
                description = "after the rounds, profile each path in this JVM at --profile-threads (collapsed stacks)")
        Path profileDir;

        @Option(names = "--profile-threads", defaultValue = "8")
        int profileThreads;

        /** A path measured: a name for the report and how it is measured at a number of threads. */
        private interface ReadPath {
            String name();

            Measured measure(int threads) throws Exception;
        }

        /** A path in this JVM: one hit, or one device read, of a random cached chunk per operation. */
        private record InJvm(String name, Operation hit, Hits hits) implements ReadPath {
            @Override
            public Measured measure(int threads) throws Exception {
                return hits.measure(threads, hit);
            }
        }

        /** fio reading the chunk's size at the same places, its queue depth the threads' number. */
        private record Fio(String engine, FioReads fio, int blockBytes, int seconds) implements ReadPath {
            @Override
            public String name() {
                return "fio-" + engine;
            }

            @Override
            public Measured measure(int threads) throws Exception {
                FioReads.Result r = fio.run(engine, blockBytes, threads, seconds);
                return new Measured(r.ios(), 0, r.seconds(), Math.round(r.userNanos() + r.systemNanos()),
                        Math.round(r.userNanos()), Math.round(r.systemNanos()), null, r.p50Micros(), r.p99Micros());
            }
        }

        @Override
        public Integer call() throws Exception {
            // Four times the chunks' blocks: the reclaim order starts giving segments up a batch short of the
            // device's segments, so at twice some chunks would be reclaimed before the hits are measured;
            // 64 MiB more for the checkpoint areas and a few whole segments when the chunks are few.
            long deviceBytes = (long) chunks * ((chunkBytes + 4095) & -4096) * 4 + (64L << 20);
            List<Path> files = new ArrayList<>();
            List<AutoCloseable> open = new ArrayList<>();
            try {
                List<ReadPath> paths = new ArrayList<>();
                Path file = sparseFile(dir, "hits-compact-device.img", deviceBytes);
                files.add(file);
                Path sstable = dir.resolve("hits-compact-Data.db");
                Files.write(sstable, new byte[4096]);
                files.add(sstable);
                SegmentFlashCache cache = filledCompact(file, FileIdentity.of(sstable), IoEngine.LIBAIO, false, false);
                open.add(cache);
                // The same chunks on more devices: hits that read in the caller's thread with a blocking
                // pread (read_in_caller_thread), and through io_uring rings (engine io_uring).
                Path callerFile = sparseFile(dir, "hits-compact-pread-device.img", deviceBytes);
                files.add(callerFile);
                SegmentFlashCache callerCache = filledCompact(callerFile, FileIdentity.of(sstable), IoEngine.LIBAIO, true, false);
                open.add(callerCache);
                Path uringFile = sparseFile(dir, "hits-compact-uring-device.img", deviceBytes);
                files.add(uringFile);
                SegmentFlashCache uringCache = filledCompact(uringFile, FileIdentity.of(sstable), IoEngine.IO_URING, false);
                open.add(uringCache);
                // The same chunks but half of each zeros, stored compressed (chunks_on_flash: compressed, about
                // 2:1): what a hit reads and what its decompression costs.
                Path lz4File = sparseFile(dir, "hits-compact-lz4-device.img", deviceBytes);
                files.add(lz4File);
                SegmentFlashCache lz4Cache = filledCompact(lz4File, FileIdentity.of(sstable), IoEngine.LIBAIO, false, true);
                open.add(lz4Cache);
                CachedFile lz4Chunks = lz4Cache.files().live().get(0);
                lz4Chunks.storeCompressed(true);
                CachedFile cachedFile = cache.files().live().get(0);
                long cached = cache.entries();
                if (cached < chunks) {
                    throw new IllegalStateException("the cache holds " + cached + " of the " + chunks
                            + " chunks written: every read must be a hit, so the device must be larger");
                }
                // The bare device: reads of the chunk's size where the segments are, over the part written.
                DeviceSpec spec = DeviceSpec.of(file).withEngine(IoEngine.LIBAIO).withQueueDepth(queueDepth).asReadOnly();
                BlockDevice device = BlockDevices.open(spec);
                open.add(device::close);
                long first = CacheInternals.engine(cache).start().layouts().get(0).segmentLayout().firstByte() / BlockDevice.BLOCK_SIZE;
                long written = (long) chunks * ((chunkBytes + 4095) & -4096) / BlockDevice.BLOCK_SIZE;
                long[] lbas = new SplittableRandom(5).longs(chunks, first, first + written).toArray();
                paths.add(new InJvm("compact", hitOf(cache, cachedFile), this));
                paths.add(new InJvm("compact-pread", hitOf(callerCache, callerCache.files().live().get(0)), this));
                paths.add(new InJvm("compact-uring", hitOf(uringCache, uringCache.files().live().get(0)), this));
                paths.add(new InJvm("compact-lz4", hitOf(lz4Cache, lz4Chunks), this));
                AlignedBufferPool devicePool = new AlignedBufferPool(128 * 1024, 64L << 20); // a 64 KiB chunk's record is larger
                // Buffers come and go through a pool, as on the cache's path: reading into one fixed
                // buffer per thread measured markedly slower here.
                paths.add(new InJvm("device", deviceReads(device, lbas, devicePool, chunkBytes, QUEUED), this));
                paths.add(new InJvm("device-pread", deviceReads(device, lbas, devicePool, chunkBytes, PREAD), this));
                BlockDevice uringDevice = BlockDevices.open(spec.withEngine(IoEngine.IO_URING));
                open.add(uringDevice::close);
                paths.add(new InJvm("device-uring", deviceReads(uringDevice, lbas, devicePool, chunkBytes, WITHIN), this));
                // What a hit reads: the record (chunk and header) in whole blocks. Splits compact/device
                // into what the extra bytes cost and what the engine costs.
                int recordRead = (RecordFormat.recordBytes(chunkBytes, SECTOR) + BlockDevice.BLOCK_SIZE - 1) & -BlockDevice.BLOCK_SIZE;
                paths.add(new InJvm("device-record", deviceReads(device, lbas, devicePool, recordRead, QUEUED), this));
                if (!fio.equals("none")) {
                    // The device's own cost for the same reads: fio at the same places, chunk-sized.
                    FioReads reads = new FioReads(fio, file, first * BlockDevice.BLOCK_SIZE, written * BlockDevice.BLOCK_SIZE);
                    paths.add(new Fio("libaio", reads, chunkBytes, seconds));
                    paths.add(new Fio("io_uring", reads, chunkBytes, seconds));
                }
                int group = 0;
                for (int round = 0; round < repeat; round++) {
                    for (int t : threads) {
                        // Rotate which goes first, so drift on a shared machine favours none.
                        for (int step = 0; step < paths.size(); step++) {
                            ReadPath path = paths.get((step + group) % paths.size());
                            report("hits", path.name(), t, round, cached, path.measure(t));
                        }
                        group++;
                    }
                }
                if (profileDir != null) {
                    // Apart from the rounds: the profiler's own cost stays out of their figures.
                    for (ReadPath path : paths) {
                        if (path instanceof InJvm) {
                            Path collapsed = profileDir.resolve("profile-" + path.name() + "-" + chunkBytes + "-t"
                                    + profileThreads + ".collapsed");
                            Measured m;
                            try (CpuProfile ignored = CpuProfile.start(collapsed)) {
                                m = path.measure(profileThreads);
                            }
                            report("hits-profile", path.name(), profileThreads, 0, cached, m);
                        }
                    }
                }
                System.err.println("cache after the run: " + cache.stats());
                CacheStats lz4 = lz4Cache.stats();
                System.err.printf("compact-lz4: %.0f bytes read a flash hit (%d hits, %d bytes), chunks of %d bytes stored"
                                + " in %.0f bytes each, %d second reads%n",
                        (double) lz4.engine().flashBytesRead() / Math.max(1, lz4.flashHits()), lz4.flashHits(),
                        lz4.engine().flashBytesRead(), chunkBytes,
                        (double) lz4.engine().compression().payloadBytes() / Math.max(1, lz4.engine().compression().compressedChunks()),
                        lz4.engine().compression().secondReads());
            } finally {
                for (int i = open.size() - 1; i >= 0; i--) {
                    open.get(i).close();
                }
                for (Path file : files) {
                    Files.deleteIfExists(file);
                }
            }
            return 0;
        }

        /** One bare read of a device, one way. */
        private interface DeviceRead {
            void read(BlockDevice device, long lba, ByteBuffer buffer) throws Exception;
        }

        /** Through the device's queue, waited for by this thread. */
        private static final DeviceRead QUEUED = (device, lba, buffer) -> device.read(lba, buffer).join();
        /** A blocking read in this thread (pread). */
        private static final DeviceRead PREAD = BlockDevice::readNow;
        /** Read and waited for in this thread (io_uring rings where the device has them). */
        private static final DeviceRead WITHIN = (device, lba, buffer) ->
                device.readWithin(lba, buffer, TimeUnit.SECONDS.toNanos(10)).join();

        /** Reads of {@code bytes} (whole blocks) from random blocks of {@code lbas}, none past the device's end. */
        private static Operation deviceReads(BlockDevice device, long[] lbas, AlignedBufferPool pool, int bytes,
                                             DeviceRead how) {
            long lastLba = device.capacityBlocks() - bytes / BlockDevice.BLOCK_SIZE;
            return random -> {
                ByteBuffer buffer = pool.acquire(bytes);
                how.read(device, Math.min(lastLba, lbas[random.nextInt(lbas.length)]), buffer);
                pool.release(buffer);
                return true;
            };
        }

        private Operation hitOf(FlashCache cache, CachedFile cachedFile) {
            return random -> {
                CachedChunk chunk = cache.get(cachedFile, (long) random.nextInt(chunks) * chunkBytes, chunkBytes, false);
                if (chunk == null) {
                    return false;
                }
                chunk.release();
                return true;
            };
        }

        /**
         * The engine filled, closed and opened again: every chunk is then on flash (none in
         * a segment buffer) and came back through recovery, as after a restart.
         */
        private SegmentFlashCache filledCompact(Path file, FileIdentity sstable, IoEngine engine, boolean readInCallerThread)
                throws Exception {
            return filledCompact(file, sstable, engine, readInCallerThread, false);
        }

        /** As above; with {@code compressed}, chunks half zeros stored compressed. */
        private SegmentFlashCache filledCompact(Path file, FileIdentity sstable, IoEngine engine, boolean readInCallerThread,
                                                boolean compressed) throws Exception {
            DeviceSpec spec = DeviceSpec.of(file).withEngine(engine).withQueueDepth(queueDepth);
            CacheConfig config = CacheConfig.builder().device(spec)
                    .maxWritesInFlight(Math.min(8, queueDepth)).queueBytes(256L << 20)
                    .readInCallerThread(readInCallerThread).expectedChunkBytes(chunkBytes)
                    // What a read costs, not how the cache meets a slow one: on a loaded machine a read in
                    // the caller's thread can pass the default 200 ms, and the breaker then takes the
                    // device out of use for a minute (every hit a miss).
                    .readTimeoutMillis(5_000).build();
            try (SegmentFlashCache cache = new SegmentFlashCache(config, List.of(BlockDevices.open(spec)), System::nanoTime)) {
                CachedFile cachedFile = cache.registerFile(sstable);
                cachedFile.storeCompressed(compressed);
                for (int i = 0; i < chunks; i++) {
                    ByteBuffer chunk = compressed
                            ? ByteBuffer.wrap(ChunkContent.compressible(1, (long) i * chunkBytes, chunkBytes, chunkBytes / 2))
                            : ChunkContent.buffer(1, (long) i * chunkBytes, chunkBytes);
                    cache.put(cachedFile, (long) i * chunkBytes, chunk, System.nanoTime());
                    while (cache.stats().engine().queuedBytes() > (128L << 20)) {
                        Thread.sleep(1);
                    }
                }
                if (!CacheInternals.engine(cache).awaitWritten(5, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("the engine's writer did not take every chunk in 5 minutes");
                }
            }
            // The file is unchanged on disk, so the restart restores it with its chunks.
            return new SegmentFlashCache(config, List.of(BlockDevices.open(spec)), System::nanoTime);
        }

        interface Operation {
            boolean run(SplittableRandom random) throws Exception;
        }

        /** A measurement; latency percentiles from the histogram, or as fio gave them when it is null. */
        record Measured(long ops, long misses, double seconds, long cpuNanos, long userNanos, long systemNanos,
                        Histogram latency, double p50Micros, double p99Micros) {
            double p50() {
                return latency == null ? p50Micros : latency.getValueAtPercentile(50) / 1e3;
            }

            double p99() {
                return latency == null ? p99Micros : latency.getValueAtPercentile(99) / 1e3;
            }
        }

        Measured measure(int threadCount, Operation operation) throws Exception {
            AtomicLong ops = new AtomicLong();
            AtomicLong misses = new AtomicLong();
            Histogram latency = new Histogram(3);
            // A worker's failure fails the measurement: a path that throws must not report 0 ops/s.
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(threadCount);
            long warmupEnd = System.nanoTime() + 1_000_000_000L;
            long end = warmupEnd + seconds * 1_000_000_000L;
            long[] cpuAtStart = new long[1];
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threadCount; t++) {
                SplittableRandom random = new SplittableRandom(31L * t + 7);
                Thread worker = new Thread(() -> {
                    Histogram local = new Histogram(3);
                    try {
                        while (true) {
                            long start = System.nanoTime();
                            if (start >= end) {
                                break;
                            }
                            boolean hit = operation.run(random);
                            long now = System.nanoTime();
                            if (start >= warmupEnd) {
                                if (hit) {
                                    ops.incrementAndGet();
                                    local.recordValue(now - start);
                                } else {
                                    misses.incrementAndGet();
                                }
                            }
                        }
                    } catch (Exception | Error e) {
                        failure.compareAndSet(null, e);
                    } finally {
                        synchronized (latency) {
                            latency.add(local);
                        }
                        done.countDown();
                    }
                });
                workers.add(worker);
                worker.start();
            }
            Thread.sleep(Math.max(0, (warmupEnd - System.nanoTime()) / 1_000_000));
            cpuAtStart[0] = processCpuNanos();
            long[] ticksAtStart = userAndSystemTicks();
            done.await();
            if (failure.get() != null) {
                throw new IllegalStateException("a reader failed", failure.get());
            }
            long cpu = processCpuNanos() - cpuAtStart[0];
            long[] ticks = userAndSystemTicks();
            long user = ticks[0] - ticksAtStart[0];
            long system = ticks[1] - ticksAtStart[1];
            // The split from the kernel's ticks (coarse), applied to the JVM's precise total.
            double userShare = user + system == 0 ? 0 : (double) user / (user + system);
            return new Measured(ops.get(), misses.get(), seconds, cpu, Math.round(cpu * userShare),
                    Math.round(cpu * (1 - userShare)), latency, 0, 0);
        }

        private void report(String bench, String what, int threadCount, int round, long cached, Measured m) {
            double opsPerSecond = m.ops() / m.seconds();
            System.out.printf(Locale.ROOT, "{\"bench\":\"%s\",\"path\":\"%s\",\"chunk_bytes\":%d,\"threads\":%d,"
                            + "\"round\":%d,\"cached_chunks\":%d,\"ops_per_s\":%.1f,\"mb_per_s\":%.2f,\"misses\":%d,"
                            + "\"p50_us\":%.1f,\"p99_us\":%.1f,\"cpu_us_per_op\":%.2f,\"cpu_user_us_per_op\":%.2f,"
                            + "\"cpu_sys_us_per_op\":%.2f}%n",
                    bench, what, chunkBytes, threadCount, round, cached, opsPerSecond, opsPerSecond * chunkBytes / 1e6,
                    m.misses(), m.p50(), m.p99(), perOp(m.cpuNanos(), m), perOp(m.userNanos(), m),
                    perOp(m.systemNanos(), m));
            System.out.flush();
        }

        private static double perOp(long nanos, Measured m) {
            return m.ops() == 0 ? 0 : nanos / 1e3 / m.ops();
        }
    }

    /** What one reader of a hotspot stream did. */
    record HotspotRun(long hits, long offeredBytes) {
    }

    interface AfterPut {
        void run() throws Exception;
    }

    /**
     * One reader of a hotspot stream (30% of the keys get 80% of the {@code requests}, seeded): a get
     * of each chunk, and on a miss a put of its bytes, as a node's reader does; {@code afterPut} runs
     * after each put.
     */
    static HotspotRun replayHotspot(FlashCache cache, CachedFile file, int keys, int requests, int chunkBytes,
                                    AfterPut afterPut) throws Exception {
        SplittableRandom random = new SplittableRandom(42);
        int hot = (int) (keys * 0.3);
        long offeredBytes = 0;
        long hits = 0;
        for (int r = 0; r < requests; r++) {
            int key = random.nextInt(100) < 80 ? random.nextInt(hot) : hot + random.nextInt(keys - hot);
            long position = (long) key * chunkBytes;
            CachedChunk chunk = cache.get(file, position, chunkBytes, false);
            if (chunk != null) {
                hits++;
                chunk.release();
            } else {
                cache.put(file, position, ChunkContent.buffer(3, position, chunkBytes), System.nanoTime());
                offeredBytes += chunkBytes;
                afterPut.run();
            }
        }
        return new HotspotRun(hits, offeredBytes);
    }

    /**
     * The engine's flash writes under a hotspot stream (issue 15's target: at most 1.05 flash
     * bytes written per admitted chunk byte): one reader misses, offers, and hits as a node's
     * reader does; the queue is let drain when half full, as a node's misses wait on its disk.
     */
    @Command(name = "compact-writes", description = "The engine's flash bytes written per admitted byte.")
    static final class EngineWrites implements Callable<Integer> {
        @Option(names = "--keys", defaultValue = "100000")
        int keys;

        @Option(names = "--requests", defaultValue = "1000000")
        int requests;

        @Option(names = "--cache-fraction", defaultValue = "0.25", description = "Flash capacity as a share of the key space.")
        double cacheFraction;

        @Option(names = "--segment-mib", defaultValue = "16")
        int segmentMib;

        @Option(names = "--dir", defaultValue = "target/bench")
        Path dir;

        @Option(names = "--discard", description = "discard: true on the device (each freed segment punched out of the file).")
        boolean discard;

        @Override
        public Integer call() throws Exception {
            int chunkBytes = 16384;
            long flashBytes = (long) (keys * cacheFraction) * chunkBytes;
            // Room for the superblock and both checkpoint areas besides the segments.
            Path file = sparseFile(dir, "compact-writes-device.img", flashBytes + flashBytes / 50 + (8L << 20));
            DeviceSpec spec = DeviceSpec.of(file).withEngine(IoEngine.LIBAIO).withQueueDepth(32).withDiscard(discard);
            long queueBytes = 32L << 20;
            CacheConfig config = CacheConfig.builder().device(spec)
                    .segmentBytes(segmentMib << 20).expectedChunkBytes(chunkBytes).queueBytes(queueBytes).build();
            BlockDevice device = BlockDevices.open(spec);
            try (SegmentFlashCache cache = new SegmentFlashCache(config, List.of(device), System::nanoTime)) {
                CachedFile cachedFile = cache.registerFile(new FileIdentity("/data/writes", 1L << 40, 1, 1, 1, 1));
                long start = System.nanoTime();
                HotspotRun run = replayHotspot(cache, cachedFile, keys, requests, chunkBytes, () -> {
                    if (CacheInternals.engine(cache).queuedBytes() > queueBytes / 2 && !CacheInternals.engine(cache).awaitWritten(1, TimeUnit.MINUTES)) {
                        throw new IllegalStateException("the writer did not drain its queue in a minute");
                    }
                });
                long hits = run.hits();
                long offeredBytes = run.offeredBytes();
                if (!CacheInternals.engine(cache).awaitWritten(1, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("the writer did not drain its queue in a minute");
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                CacheStats stats = cache.stats();
                var writer = CacheInternals.engine(cache).segmentWriter();
                long admitted = writer.appended(); // chunks admitted and written (reinsertions apart)
                long admittedBytes = admitted * chunkBytes;
                long segmentBytesWritten = (long) writer.sealed() * (segmentMib << 20);
                // What the device wrote: windows, summaries, the open segment's records at checkpoints, the
                // checkpoints themselves. Whole sealed segments were the count before windows.
                long deviceBytesWritten = device.stats().writeBytes();
                long recordBytes = (writer.appended() + writer.reinserted())
                        * RecordFormat.recordBytes(chunkBytes, SECTOR);
                var discards = CacheInternals.engine(cache).discards();
                long discarded = discards == null ? 0 : discards.discarded();
                System.out.printf(Locale.ROOT, "{\"bench\":\"compact-writes\",\"keys\":%d,\"requests\":%d,"
                                + "\"cache_fraction\":%.2f,\"segment_bytes\":%d,\"seconds\":%.2f,\"hit_rate\":%.4f,"
                                + "\"offered_bytes\":%d,\"admitted_bytes\":%d,\"not_admitted\":%d,\"queue_full\":%d,"
                                + "\"appended\":%d,\"reinserted\":%d,\"sealed_segments\":%d,\"segment_bytes_written\":%d,"
                                + "\"device_bytes_written\":%d,\"written_per_admitted\":%.4f,"
                                + "\"segments_written_per_admitted\":%.4f,\"record_bytes_per_admitted\":%.4f,"
                                + "\"reinserted_per_admitted\":%.4f,\"checkpoints\":%d,\"discard\":%b,\"discards\":%d,"
                                + "\"discard_failed\":%d,\"discard_seconds\":%.3f,\"dropped\":%d}%n",
                        keys, requests, cacheFraction, segmentMib << 20, seconds, hits / (double) requests, offeredBytes,
                        admittedBytes, stats.engine().notAdmitted(), stats.engine().queueFull(), writer.appended(),
                        writer.reinserted(), writer.sealed(), segmentBytesWritten, deviceBytesWritten,
                        deviceBytesWritten / (double) Math.max(1, admittedBytes),
                        segmentBytesWritten / (double) Math.max(1, admittedBytes),
                        recordBytes / (double) Math.max(1, admittedBytes),
                        writer.reinserted() / (double) Math.max(1, admitted), stats.engine().checkpoints(), discard,
                        discarded, discards == null ? 0 : discards.failed(), discards == null ? 0 : discards.nanos() / 1e9,
                        stats.engine().dropped());
            } finally {
                Files.deleteIfExists(file);
            }
            return 0;
        }
    }

    /** Hit rounds with checkpoints running back to back and without, alternating which goes first. */
    static final class CheckpointRounds {
        @Option(names = "--threads", defaultValue = "4")
        int threads;

        @Option(names = "--seconds", defaultValue = "5")
        int seconds;

        @Option(names = "--repeat", defaultValue = "2")
        int repeat;

        interface Checkpoint {
            /** Writes one checkpoint; false if it did not become durable. */
            boolean run() throws Exception;
        }

        /**
         * Measures {@code hit} in {@code repeat} rounds of two, one while {@code checkpoint} runs back to
         * back; prints one JSON line per measurement, as {@code bench}, with the index's entries.
         */
        void run(String bench, long indexEntries, Checkpoint checkpoint, Hits.Operation hit) throws Exception {
            Hits hits = new Hits();
            hits.seconds = seconds;
            for (int round = 0; round < repeat; round++) {
                for (boolean checkpointing : new boolean[] {round % 2 == 0, round % 2 != 0}) {
                    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
                    AtomicLong checkpoints = new AtomicLong();
                    Thread writer = new Thread(() -> {
                        while (checkpointing && !stop.get()) {
                            try {
                                if (checkpoint.run()) {
                                    checkpoints.incrementAndGet();
                                }
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        }
                    });
                    writer.start();
                    Hits.Measured m = hits.measure(threads, hit);
                    stop.set(true);
                    writer.join();
                    System.out.printf(Locale.ROOT, "{\"bench\":\"%s\",\"checkpointing\":%s,"
                                    + "\"round\":%d,\"index_entries\":%d,\"checkpoints\":%d,\"threads\":%d,\"misses\":%d,"
                                    + "\"ops_per_s\":%.1f,\"p50_us\":%.1f,\"p99_us\":%.1f,\"p999_us\":%.1f,\"max_us\":%.1f}%n",
                            bench, checkpointing, round, indexEntries, checkpoints.get(), threads, m.misses(),
                            m.ops() / m.seconds(), m.latency().getValueAtPercentile(50) / 1e3,
                            m.latency().getValueAtPercentile(99) / 1e3, m.latency().getValueAtPercentile(99.9) / 1e3,
                            m.latency().getMaxValue() / 1e3);
                    System.out.flush();
                }
            }
        }
    }

    /**
     * The engine's checkpoints and recovery at scale (issues 15, 40): real chunks to hit plus
     * synthetic index entries (no bytes behind them), hit latency while full checkpoints run back to
     * back against while none runs (same run, alternating), one timed full checkpoint, then 1% more
     * entries (in segments with their summaries) and one timed delta, then a restart: recovery time
     * is the whole start of a new cache on the device (superblock, the full checkpoint streamed into
     * the index, the delta's segments' summaries read, files checked), after which every recovered
     * chunk is served.
     */
    @Command(name = "compact-checkpoint", description = "The engine's checkpoint, recovery and hit latency while checkpointing.")
    static final class EngineCheckpoint implements Callable<Integer> {
        @Option(names = "--entries", defaultValue = "10000000", description = "Synthetic index entries (no data).")
        long entries;

        @Option(names = "--chunks", defaultValue = "8192", description = "Real 16 KiB chunks, the ones hit.")
        int chunks;

        @Option(names = "--files", defaultValue = "1000")
        int fileCount;

        @CommandLine.Mixin
        CheckpointRounds rounds;

        @Option(names = "--dir", defaultValue = "target/bench")
        Path dir;

        private static final int CHUNK = 16384;
        private static final int SEGMENT = 16 << 20;

        private void writeRealChunks(CacheConfig config, DeviceSpec spec, Path hotPath) throws Exception {
            try (SegmentFlashCache cache = new SegmentFlashCache(config, List.of(BlockDevices.open(spec)), System::nanoTime)) {
                CachedFile hot = cache.registerFile(FileIdentity.of(hotPath));
                for (int i = 0; i < chunks; i++) {
                    cache.put(hot, (long) i * CHUNK, ChunkContent.buffer(1, (long) i * CHUNK, CHUNK), System.nanoTime());
                    while (cache.stats().engine().queuedBytes() > (128L << 20)) {
                        Thread.sleep(1);
                    }
                }
                if (!CacheInternals.engine(cache).awaitWritten(5, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("the writer did not take the real chunks in 5 minutes");
                }
            }
        }

        @Override
        public Integer call() throws Exception {
            int perSegment = SEGMENT / RecordFormat.recordBytes(CHUNK, SECTOR) - 1;
            long segments = (entries + chunks) / perSegment + 16;
            long deviceBytes = (long) (segments * (double) SEGMENT * 1.02) + (256L << 20);
            Path file = sparseFile(dir, "compact-checkpoint-device.img", deviceBytes / BlockDevice.BLOCK_SIZE * BlockDevice.BLOCK_SIZE);
            DeviceSpec spec = DeviceSpec.of(file).withEngine(IoEngine.LIBAIO);
            CacheConfig config = CacheConfig.builder().device(spec)
                    .segmentBytes(SEGMENT).expectedChunkBytes(CHUNK).checkpointChangePercent(0)
                    .checkpointIntervalMillis(3_600_000).queueBytes(256L << 20).build();
            Path data = dir.resolve("compact-checkpoint-data");
            try {
                long[] filled = fillMeasureAndClose(config, spec, data);
                // Only the device links the two caches: the first is unreachable here, as after a restart.
                System.gc();
                long start = System.nanoTime();
                try (SegmentFlashCache cache = new SegmentFlashCache(config, List.of(BlockDevices.open(spec)), System::nanoTime)) {
                    long recoveryNanos = System.nanoTime() - start;
                    long recovered = cache.stats().recoveredEntries();
                    CachedFile hot = cache.registerFile(FileIdentity.of(data.resolve("hot-Data.db")));
                    int served = 0;
                    for (int i = 0; i < chunks; i++) {
                        CachedChunk chunk = cache.get(hot, (long) i * CHUNK, CHUNK, false);
                        if (chunk != null) {
                            served++;
                            chunk.release();
                        }
                    }
                    System.out.printf(Locale.ROOT, "{\"bench\":\"compact-checkpoint\",\"entries\":%d,\"index_entries\":%d,"
                                    + "\"checkpoint_bytes\":%d,\"bytes_per_entry\":%.1f,\"checkpoint_ms\":%d,"
                                    + "\"delta_after_entries\":%d,\"delta_changed_segments\":%d,\"delta_bytes\":%d,"
                                    + "\"delta_share_of_full\":%.5f,\"delta_ms\":%d,\"entries_at_restart\":%d,"
                                    + "\"recovered\":%d,\"recovery_ms\":%d,\"recovery_entries_per_s\":%.0f,"
                                    + "\"real_chunks\":%d,\"real_chunks_served_after_restart\":%d}%n",
                            entries, filled[2], filled[1], filled[1] / (double) Math.max(1, filled[2]), filled[0],
                            entries / 100, filled[5], filled[4], filled[4] / (double) filled[1], filled[3], filled[6],
                            recovered, recoveryNanos / 1_000_000, recovered / (recoveryNanos / 1e9), chunks, served);
                }
            } finally {
                Files.deleteIfExists(file);
            }
            return 0;
        }

        /**
         * Fills a cache, measures hits with and without checkpoints running, times one checkpoint and
         * closes the cache; returns checkpoint ms, bytes and index entries. A method of its own so that
         * no stack slot keeps the first cache alive during recovery.
         */
        private long[] fillMeasureAndClose(CacheConfig config, DeviceSpec spec, Path data) throws Exception {
            Files.createDirectories(data);
            Path hotPath = data.resolve("hot-Data.db");
            Files.write(hotPath, new byte[] {1});
            writeRealChunks(config, spec, hotPath);
            // Opened again: the real chunks are all on flash, none in a segment buffer.
            try (SegmentFlashCache cache = new SegmentFlashCache(config, List.of(BlockDevices.open(spec)), System::nanoTime)) {
                CachedFile hot = cache.registerFile(FileIdentity.of(hotPath));
                List<CachedFile> files = new ArrayList<>();
                for (int f = 0; f < fileCount; f++) {
                    Path path = data.resolve("nb-" + f + "-big-Data.db");
                    if (!Files.exists(path)) {
                        Files.write(path, new byte[] {(byte) f});
                    }
                    files.add(cache.registerFile(FileIdentity.of(path)));
                }
                long perFile = (entries + fileCount - 1) / fileCount;
                long started = System.nanoTime();
                CacheEngine engine = CacheInternals.engine(cache);
                io.flashchunk.cache.engine.SyntheticChunks.fill(engine, entries, CHUNK,
                        i -> ChunkKeys.key(files.get((int) (i / perFile)).id(), (i % perFile) * CHUNK + (1L << 40)));
                System.err.printf("filled %,d synthetic entries in %.1f s%n", entries, (System.nanoTime() - started) / 1e9);
                measureLatency(cache, hot);
                Checkpointer.Result full = timedCheckpoint(cache, true);
                // 1% of the entries more, in new segments with their summaries on flash: what a delta names
                // and a recovery from it reads.
                long more = entries / 100;
                io.flashchunk.cache.engine.SyntheticChunks.fill(engine, more, CHUNK,
                        i -> ChunkKeys.key(files.get((int) (i % fileCount)).id(), (1L << 41) + i * CHUNK), true);
                Checkpointer.Result delta = timedCheckpoint(cache, false);
                if (delta.deltaSpaces() != 1) {
                    throw new IllegalStateException("expected a delta after 1% more entries: " + delta);
                }
                return new long[] {full.startedMillis(), full.bytes(), full.entries(), delta.startedMillis(), delta.bytes(),
                        delta.changedSegments(), cache.entries()};
            }
        }

        /**
         * Writes one checkpoint (a full one when {@code full}); returns it, its {@code startedMillis}
         * replaced by the milliseconds it took.
         */
        private static Checkpointer.Result timedCheckpoint(SegmentFlashCache cache, boolean full) throws Exception {
            long before = cache.stats().engine().checkpoints();
            long start = System.nanoTime();
            if (!CacheInternals.engine(cache).checkpoint(10, TimeUnit.MINUTES, full)) {
                throw new IllegalStateException("the timed checkpoint did not become durable");
            }
            long ms = (System.nanoTime() - start) / 1_000_000;
            if (cache.stats().engine().checkpoints() != before + 1) {
                throw new IllegalStateException("expected one more checkpoint");
            }
            Checkpointer.Result r = CacheInternals.engine(cache).lastCheckpoint();
            return new Checkpointer.Result(r.sequence(), r.entries(), r.refused(), r.bytes(), r.freedSegments(), ms,
                    r.deltaSpaces(), r.changedSegments());
        }

        private void measureLatency(SegmentFlashCache cache, CachedFile hot) throws Exception {
            rounds.run("compact-checkpoint-latency", cache.entries(),
                    () -> CacheInternals.engine(cache).checkpoint(10, TimeUnit.MINUTES, true), random -> {
                        CachedChunk chunk = cache.get(hot, (long) random.nextInt(chunks) * CHUNK, CHUNK, false);
                        if (chunk == null) {
                            return false;
                        }
                        chunk.release();
                        return true;
                    });
        }
    }

    /**
     * How long a full checkpoint of many entries holds the writer up (issue 40: cache fills do not stop
     * while one is written): the time markers queued behind the chunks take to reach the writer, sent
     * one after another, while a full checkpoint runs, in rounds of two in one run: one the schedule
     * starts (copied in steps between the writer's turns, then a delta and its header) and one asked
     * for (written whole on the writer's thread, as every full checkpoint was before).
     */
    @Command(name = "writer-during-full-checkpoint",
            description = "Marker round trips through the writer while a full checkpoint runs, in steps and whole.")
    static final class WriterDuringFullCheckpoint implements Callable<Integer> {
        @Option(names = "--entries", defaultValue = "10000000", description = "Synthetic index entries (no data).")
        long entries;

        @Option(names = "--repeat", defaultValue = "2")
        int repeat;

        @Option(names = "--dir", defaultValue = "target/bench")
        Path dir;

        private static final int CHUNK = 16384;
        private static final int SEGMENT = 16 << 20;
        /** The interval of the checkpoints the schedule starts: a full one comes at most this long after a chunk. */
        private static final long INTERVAL_MILLIS = 200;

        @Override
        public Integer call() throws Exception {
            int perSegment = SEGMENT / RecordFormat.recordBytes(CHUNK, SECTOR) - 1;
            long segments = entries / perSegment + 16;
            long deviceBytes = (long) (segments * (double) SEGMENT * 1.02) + (256L << 20);
            long fileBytes = deviceBytes / BlockDevice.BLOCK_SIZE * BlockDevice.BLOCK_SIZE;
            Path file = dir.resolve("writer-during-full-checkpoint.img");
            DeviceSpec spec = DeviceSpec.of(file).withEngine(IoEngine.LIBAIO);
            CacheConfig config = CacheConfig.builder().device(spec)
                    .segmentBytes(SEGMENT).expectedChunkBytes(CHUNK).checkpointChangePercent(0)
                    .checkpointIntervalMillis(INTERVAL_MILLIS).queueBytes(64L << 20).build();
            Path data = dir.resolve("writer-during-full-checkpoint-data");
            Files.createDirectories(data);
            Path path = data.resolve("nb-1-big-Data.db");
            Files.write(path, new byte[] {1});
            try {
                for (int round = 0; round < repeat; round++) {
                    for (boolean inSteps : new boolean[] {round % 2 == 0, round % 2 != 0}) {
                        Files.deleteIfExists(file); // a blank device each round: no chain to go on from
                        sparseFile(dir, file.getFileName().toString(), fileBytes);
                        try (SegmentFlashCache cache = new SegmentFlashCache(config, List.of(BlockDevices.open(spec)),
                                System::nanoTime)) {
                            CachedFile data1 = cache.registerFile(FileIdentity.of(path));
                            CacheEngine engine = CacheInternals.engine(cache);
                            io.flashchunk.cache.engine.SyntheticChunks.fill(engine, entries, CHUNK,
                                    i -> ChunkKeys.key(data1.id(), (1L << 40) + i * CHUNK));
                            measure(cache, engine, data1, inSteps, round);
                        }
                    }
                }
            } finally {
                Files.deleteIfExists(file);
            }
            return 0;
        }

        /** One round: a full checkpoint started by the schedule or asked for, and marker round trips until it is durable. */
        private void measure(SegmentFlashCache cache, CacheEngine engine, CachedFile file, boolean inSteps, int round)
                throws Exception {
            Histogram waits = new Histogram(TimeUnit.MINUTES.toNanos(10), 3);
            long before = engine.checkpoints();
            AtomicLong checkpointNanos = new AtomicLong();
            Thread asked = null;
            if (inSteps) {
                // A chunk unnamed for the interval: the schedule's first checkpoint of a run is a full one.
                cache.put(file, 0, ChunkContent.buffer(1, 0, CHUNK), System.nanoTime());
            } else {
                asked = new Thread(() -> {
                    try {
                        engine.checkpoint(10, TimeUnit.MINUTES, true);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                asked.start();
            }
            while (engine.checkpoints() == before) {
                long t = System.nanoTime();
                if (!engine.awaitWritten(10, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("a marker waited 10 minutes");
                }
                waits.recordValue(System.nanoTime() - t);
            }
            long durableMillis = System.currentTimeMillis();
            if (asked != null) {
                asked.join();
            }
            Checkpointer.Result result = engine.lastCheckpoint();
            // From its start (the engine's clock is the wall clock) to a marker after it was durable.
            checkpointNanos.set(TimeUnit.MILLISECONDS.toNanos(durableMillis - result.startedMillis()));
            // A full index displaces an entry now and then (more often while a pass refuses moves across it).
            if (result == null || result.entries() < entries * 0.99 || result.deltaSpaces() != 0) {
                throw new IllegalStateException("expected a full checkpoint of the entries: " + result);
            }
            System.out.printf(Locale.ROOT, "{\"bench\":\"writer-during-full-checkpoint\",\"in_steps\":%b,\"round\":%d,"
                            + "\"entries\":%d,\"checkpoint_bytes\":%d,\"checkpoint_ms\":%.1f,\"markers\":%d,"
                            + "\"marker_p50_ms\":%.3f,\"marker_p99_ms\":%.3f,\"marker_max_ms\":%.3f}%n",
                    inSteps, round, result.entries(), result.bytes(), checkpointNanos.get() / 1e6, waits.getTotalCount(),
                    waits.getValueAtPercentile(50) / 1e6, waits.getValueAtPercentile(99) / 1e6, waits.getMaxValue() / 1e6);
        }
    }

    /**
     * What the dead-file sweep costs the writer (issue 40): an index of {@code --entries} chunks of two
     * files, one of which dies; the sweep's lookups timed a writer's idle turn (4,096) at a time, as the
     * writer runs them when it has nothing else to do, until the file's chunks have all left the index.
     * A chunk waiting in the queue waits at most one such turn; under load the writer looks up 64 keys
     * an item it takes.
     */
    @Command(name = "dead-file-sweep", description = "The dead-file sweep's lookups: time a key and a writer's turn.")
    static final class DeadFileSweepCost implements Callable<Integer> {
        @Option(names = "--entries", defaultValue = "10000000", description = "Chunks of 16 KiB cached, half of them the dead file's.")
        long entries;

        @Option(names = "--repeat", defaultValue = "2")
        int repeat;

        @Option(names = "--dir", defaultValue = "target/bench", description = "Scratch directory (none is needed: the index alone).")
        Path dir;

        private static final int CHUNK = 16384;
        private static final int TURN = 4096;

        @Override
        public Integer call() {
            int perSegment = 800;
            int segments = Math.toIntExact(entries / perSegment + 1);
            var layout = new io.flashchunk.cache.format.SegmentLayout(1 << 20, 16 << 20, segments, SECTOR);
            int recordSectors = RecordFormat.recordBytes(CHUNK, SECTOR) / SECTOR;
            for (int round = 0; round < repeat; round++) {
                var index = new io.flashchunk.cache.index.ChunkIndex(entries);
                var segmentEntries = new io.flashchunk.cache.index.SegmentEntries(segments,
                        address -> layout.contains(address) ? layout.index(address) : -1);
                var locations = new ChunkLocations(index, segmentEntries);
                var sweep = new io.flashchunk.cache.reclaim.DeadFileSweep(locations);
                // Two files, each half the chunks, interleaved in the segments as reads of both would leave them.
                for (long i = 0; i < entries; i++) {
                    long key = ChunkKeys.key(1 + (int) (i & 1), (i >> 1) * CHUNK);
                    locations.placed(key, layout.address(0, (int) (i / perSegment), (int) (i % perSegment) * recordSectors));
                    sweep.onFlash(key);
                }
                long cached = index.entries();
                Histogram turns = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
                sweep.died(1);
                long started = System.nanoTime();
                boolean more = true;
                long calls = 0;
                while (more) {
                    long t = System.nanoTime();
                    more = sweep.sweep(TURN);
                    turns.recordValue(System.nanoTime() - t);
                    calls++;
                }
                long nanos = System.nanoTime() - started;
                long lookups = (entries + 1) / 2; // the dead file's positions, one lookup each
                System.out.printf(Locale.ROOT, "{\"bench\":\"dead-file-sweep\",\"round\":%d,\"entries\":%d,"
                                + "\"removed\":%d,\"lookups\":%d,\"turns\":%d,\"sweep_ms\":%.1f,\"ns_per_lookup\":%.1f,"
                                + "\"turn_p50_us\":%.1f,\"turn_p99_us\":%.1f,\"turn_max_us\":%.1f,\"left_in_index\":%d}%n",
                        round, cached, sweep.removed(), lookups, calls, nanos / 1e6, nanos / (double) lookups,
                        turns.getValueAtPercentile(50) / 1e3, turns.getValueAtPercentile(99) / 1e3,
                        turns.getMaxValue() / 1e3, index.entries());
            }
            return 0;
        }
    }
}

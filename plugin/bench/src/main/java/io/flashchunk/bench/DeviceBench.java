package io.flashchunk.bench;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.DeviceStats;
import io.flashchunk.device.IoEngine;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Random reads through a {@link BlockDevice}, closed loop at a fixed queue depth, the way fio's
 * randread job runs: each completion submits the next read at once. Prints one JSON line with IOPS,
 * MB/s, latency percentiles (submission to completion) and process CPU per I/O over the measured
 * window only.
 */
@Command(name = "device-bench", mixinStandardHelpOptions = true,
        description = "Random-read benchmark of a FlashChunk block device engine.")
public final class DeviceBench implements Callable<Integer> {
    @Option(names = "--path", required = true, description = "File or block device (must already hold data).")
    Path path;

    @Option(names = "--engine", defaultValue = "libaio", description = "libaio, threadpool or capi.")
    String engine;

    @Option(names = "--capi-library", defaultValue = DeviceSpec.DEFAULT_CAPI_LIBRARY)
    String capiLibrary;

    @Option(names = "--bs", defaultValue = "4096", description = "Bytes per read, a multiple of 4096.")
    int blockSize;

    @Option(names = "--qd", defaultValue = "1", description = "Reads in flight.")
    int queueDepth;

    @Option(names = "--warmup", defaultValue = "2", description = "Seconds before measuring.")
    int warmupSeconds;

    @Option(names = "--seconds", defaultValue = "5", description = "Seconds measured.")
    int seconds;

    @Option(names = "--label", defaultValue = "", description = "Name of this row in the report.")
    String label;

    public static void main(String[] args) {
        System.exit(new CommandLine(new DeviceBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        IoEngine ioEngine = IoEngine.parse("--engine", engine);
        DeviceSpec spec = DeviceSpec.of(path).withEngine(ioEngine).withQueueDepth(queueDepth).withCapiLibrary(capiLibrary);
        try (BlockDevice device = BlockDevices.open(spec)) {
            Result result = run(device);
            System.out.println(result.toJson(label.isEmpty() ? "flashchunk-" + engine : label, engine, blockSize, queueDepth));
        }
        return 0;
    }

    private Result run(BlockDevice device) throws InterruptedException {
        int blocksPerRead = blockSize / BlockDevice.BLOCK_SIZE;
        long extents = device.capacityBlocks() / blocksPerRead;
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stopping = new AtomicBoolean();
        AtomicLong completed = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        Histogram latency = new Histogram(3);
        CountDownLatch stopped = new CountDownLatch(queueDepth);
        // One reader per slot, each with its own buffer and random stream; completions chain the next read.
        for (int slot = 0; slot < queueDepth; slot++) {
            Reader reader = new Reader(device, AlignedBuffers.allocate(blockSize), new SplittableRandom(slot * 7919L + 1),
                    extents, blocksPerRead, measuring, stopping, completed, errors, latency, stopped);
            reader.next();
        }
        TimeUnit.SECONDS.sleep(warmupSeconds);
        long cpuStart = processCpuNanos();
        long wallStart = System.nanoTime();
        measuring.set(true);
        TimeUnit.SECONDS.sleep(seconds);
        measuring.set(false);
        long wallNanos = System.nanoTime() - wallStart;
        long cpuNanos = processCpuNanos() - cpuStart;
        long ops = completed.get();
        stopping.set(true);
        stopped.await(30, TimeUnit.SECONDS);
        DeviceStats stats = device.stats();
        if (stats.maxInFlight() > queueDepth) {
            throw new IllegalStateException("queue depth exceeded: " + stats.maxInFlight());
        }
        synchronized (latency) {
            return new Result(ops, errors.get(), wallNanos, cpuNanos, latency.copy());
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static final class Reader {
        private final BlockDevice device;
        private final ByteBuffer buffer;
        private final SplittableRandom random;
        private final long extents;
        private final int blocksPerRead;
        private final AtomicBoolean measuring;
        private final AtomicBoolean stopping;
        private final AtomicLong completed;
        private final AtomicLong errors;
        private final Histogram latency;
        private final CountDownLatch stopped;

        Reader(BlockDevice device, ByteBuffer buffer, SplittableRandom random, long extents, int blocksPerRead,
               AtomicBoolean measuring, AtomicBoolean stopping, AtomicLong completed, AtomicLong errors,
               Histogram latency, CountDownLatch stopped) {
            this.device = device;
            this.buffer = buffer;
            this.random = random;
            this.extents = extents;
            this.blocksPerRead = blocksPerRead;
            this.measuring = measuring;
            this.stopping = stopping;
            this.completed = completed;
            this.errors = errors;
            this.latency = latency;
            this.stopped = stopped;
        }

        void next() {
            if (stopping.get()) {
                stopped.countDown();
                return;
            }
            long lba = random.nextLong(extents) * blocksPerRead;
            long start = System.nanoTime();
            device.read(lba, buffer).whenComplete((ignored, failure) -> {
                long nanos = System.nanoTime() - start;
                if (measuring.get()) {
                    if (failure != null) {
                        errors.incrementAndGet();
                    } else {
                        completed.incrementAndGet();
                        synchronized (latency) {
                            latency.recordValue(nanos);
                        }
                    }
                }
                next();
            });
        }
    }

    private record Result(long ops, long errors, long wallNanos, long cpuNanos, Histogram latency) {
        String toJson(String label, String engine, int blockSize, int queueDepth) {
            double secondsMeasured = wallNanos / 1e9;
            double iops = ops / secondsMeasured;
            return String.format(Locale.ROOT,
                    "{\"tool\":\"flashchunk\",\"label\":\"%s\",\"engine\":\"%s\",\"bs\":%d,\"qd\":%d,\"seconds\":%.3f,"
                            + "\"ops\":%d,\"errors\":%d,\"iops\":%.1f,\"mb_per_s\":%.2f,\"lat_mean_us\":%.2f,"
                            + "\"lat_p50_us\":%.2f,\"lat_p99_us\":%.2f,\"cpu_us_per_io\":%.3f}",
                    label, engine, blockSize, queueDepth, secondsMeasured, ops, errors, iops, iops * blockSize / 1e6,
                    latency.getMean() / 1e3, latency.getValueAtPercentile(50) / 1e3,
                    latency.getValueAtPercentile(99) / 1e3, ops == 0 ? 0 : cpuNanos / 1e3 / ops);
        }
    }
}

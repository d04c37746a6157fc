package io.flashchunk.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * fio reading random blocks of a region of a file with O_DIRECT: what the device's own reads of a
 * given size cost, for the hit benchmark to set beside a hit of the same size, in the same run.
 * One job at a queue depth, so that its CPU is the engine's (libaio or io_uring) and the kernel's
 * alone, read from fio's own accounting of its job (user and system time over the job's runtime).
 */
final class FioReads {
    /** What one fio run measured. */
    record Result(long ios, double seconds, double userNanos, double systemNanos, double p50Micros, double p99Micros) {
    }

    private final String fio;
    private final Path file;
    private final long offsetBytes;
    private final long sizeBytes;

    /**
     * @param fio         the fio binary
     * @param file        the file read (opened read-only)
     * @param offsetBytes where the region starts, a multiple of 4096
     * @param sizeBytes   the region's length
     */
    FioReads(String fio, Path file, long offsetBytes, long sizeBytes) {
        this.fio = fio;
        this.file = file;
        this.offsetBytes = offsetBytes;
        this.sizeBytes = sizeBytes;
    }

    /**
     * Reads of {@code blockBytes} at random 4 KiB-aligned places of the region for {@code seconds},
     * {@code queueDepth} in flight. {@code engine}: "libaio", or "io_uring" with registered buffers
     * and file, as an io_uring engine of our own would use it.
     */
    Result run(String engine, int blockBytes, int queueDepth, int seconds) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(fio, "--name=reads", "--filename=" + file, "--readonly",
                "--direct=1", "--rw=randread", "--ioengine=" + engine, "--iodepth=" + queueDepth,
                "--bs=" + blockBytes, "--blockalign=4096", "--offset=" + offsetBytes, "--size=" + sizeBytes,
                "--norandommap", "--randrepeat=0", "--time_based", "--runtime=" + seconds, "--lat_percentiles=1",
                "--output-format=json"));
        if (engine.equals("io_uring")) {
            command.addAll(List.of("--fixedbufs=1", "--registerfiles=1"));
        }
        Path output = Files.createTempFile("fio", ".json");
        try {
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT)
                    .redirectOutput(output.toFile()).start();
            if (!process.waitFor(seconds + 60L, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("fio did not end within " + (seconds + 60) + " s: " + String.join(" ", command));
            }
            if (process.exitValue() != 0) {
                throw new IOException("fio exited with " + process.exitValue() + ": " + String.join(" ", command));
            }
            return parse(Files.readString(output, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(output);
        }
    }

    /** fio's JSON output of one job: its reads, runtime, CPU shares (percent of the runtime) and latency. */
    static Result parse(String json) throws IOException {
        // fio may print notes before the JSON object.
        int start = json.indexOf('{');
        if (start < 0) {
            throw new IOException("no JSON in fio's output: " + json);
        }
        JsonNode job = new ObjectMapper().readTree(json.substring(start)).path("jobs").path(0);
        JsonNode read = job.path("read");
        if (read.isMissingNode() || !read.has("total_ios")) {
            throw new IOException("fio's output has no read results: " + json);
        }
        double runtimeNanos = read.path("runtime").asDouble() * 1e6; // milliseconds
        JsonNode percentiles = read.path("lat_ns").path("percentile");
        return new Result(read.path("total_ios").asLong(), runtimeNanos / 1e9,
                job.path("usr_cpu").asDouble() / 100 * runtimeNanos, job.path("sys_cpu").asDouble() / 100 * runtimeNanos,
                percentiles.path("50.000000").asDouble() / 1e3, percentiles.path("99.000000").asDouble() / 1e3);
    }
}

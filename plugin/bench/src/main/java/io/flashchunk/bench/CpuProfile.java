package io.flashchunk.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import one.profiler.AsyncProfiler;

/**
 * async-profiler's CPU samples of this JVM while a path is measured, written on close as collapsed
 * stacks (one line per stack, the thread's name as its root frame, then its sample count), which
 * scripts/bench_cache_report.py sorts into where a hit's CPU goes.
 */
final class CpuProfile implements AutoCloseable {
    private final AsyncProfiler profiler;
    private final Path file;

    private CpuProfile(AsyncProfiler profiler, Path file) {
        this.profiler = profiler;
        this.file = file;
    }

    /** Starts sampling every millisecond of CPU (perf events; the kernel's frames included). */
    static CpuProfile start(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        AsyncProfiler profiler = AsyncProfiler.getInstance(); // the library inside the jar
        profiler.execute("start,event=cpu,interval=1000000,threads");
        return new CpuProfile(profiler, file);
    }

    @Override
    public void close() throws IOException {
        profiler.execute("stop,collapsed,file=" + file.toAbsolutePath());
    }
}

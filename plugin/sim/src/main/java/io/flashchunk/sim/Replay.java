package io.flashchunk.sim;

/**
 * One design's replay of a trace: the reads before {@code warmup} fill the cache and are not
 * counted; the rest give the hit ratios and the flash bytes written.
 */
record Replay(String trace, String design, double cacheFraction, long cacheBytes, int reads, double hitRatio,
        double byteHitRatio, double writtenPerAdmitted, double writtenPerRead, double nanosPerRead) {

    static Replay run(ChunkTrace trace, Design design, double cacheFraction, double warmup) {
        long cacheBytes = (long) (cacheFraction * trace.universeBytes());
        SimulatedCache cache = design.build().apply(cacheBytes);
        int first = (int) (warmup * trace.length());
        for (int step = 0; step < first; step++) {
            cache.access(trace.keys()[step], trace.bytes(step));
        }
        long admittedBefore = cache.admittedBytes();
        long writtenBefore = cache.writtenBytes();
        long hits = 0;
        long hitBytes = 0;
        long readBytes = 0;
        long started = System.nanoTime();
        for (int step = first; step < trace.length(); step++) {
            int bytes = trace.bytes(step);
            readBytes += bytes;
            if (cache.access(trace.keys()[step], bytes)) {
                hits++;
                hitBytes += bytes;
            }
        }
        long elapsed = System.nanoTime() - started;
        int counted = trace.length() - first;
        long admitted = cache.admittedBytes() - admittedBefore;
        long written = cache.writtenBytes() - writtenBefore;
        return new Replay(trace.name(), design.name(), cacheFraction, cacheBytes, counted, (double) hits / counted,
                (double) hitBytes / readBytes, admitted == 0 ? 0 : (double) written / admitted,
                (double) written / readBytes, (double) elapsed / counted);
    }
}

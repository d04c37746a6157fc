package io.flashchunk.cache.admission;

import io.flashchunk.cache.engine.MemoryBudget;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongPredicate;

/**
 * Which missed chunks are written to flash: TinyLFU's admission at segment granularity, the rule the
 * cache simulator chose (docs/cache-simulator.md). Every read is counted in a {@link FrequencySketch};
 * a missed chunk is admitted only if it was read more often lately than a chunk of the segment that
 * will be reclaimed next, the one it would in the end displace. While flash has room never used,
 * or nothing can be reclaimed, everything is admitted.
 *
 * <p>Thread-safe: any thread counts reads and asks; the writer publishes the next victim's sampled
 * keys ({@link #victims}) each time it opens a segment, so a decision reads one volatile array.
 */
public final class VictimAdmission {
    /**
     * Sketch counters a row per chunk unless set (4 bytes a chunk): at full size in the simulator within
     * 0.80 points of the per-chunk engine's hit ratio on every trace, where one counter (2 bytes) is up
     * to 1.26 below (docs/cache-simulator.md, "Reclaiming as the engine does"); what it costs in memory
     * is in {@link MemoryBudget}.
     */
    public static final int DEFAULT_SKETCH_COUNTERS = 2;
    private static final long[] NONE = new long[0];

    private final FrequencySketch sketch;
    private final LongPredicate liveKey;
    private volatile long[] victims = NONE;

    /** @param chunks the chunks flash holds; {@code countersPerKey} as in {@link FrequencySketch} */
    public VictimAdmission(long chunks, int countersPerKey) {
        this(chunks, countersPerKey, 0, FrequencySketch.SAMPLE_READS_PER_KEY, key -> true);
    }

    /**
     * @param doorkeeperBitsPerKey as in {@link FrequencySketch} (0: no doorkeeper)
     * @param sampleReadsPerKey    as in {@link FrequencySketch}
     * @param liveKey              whether a key's chunk may still be served: a victim that is not (its
     *                             file died since the sample was published) makes room for anything,
     *                             whatever its past reads
     */
    public VictimAdmission(long chunks, int countersPerKey, int doorkeeperBitsPerKey, int sampleReadsPerKey,
            LongPredicate liveKey) {
        this.sketch = new FrequencySketch(chunks, countersPerKey, doorkeeperBitsPerKey, sampleReadsPerKey);
        this.liveKey = liveKey;
    }

    /** A read of the chunk of {@code key}, hit or miss. */
    public void accessed(long key) {
        sketch.increment(key);
    }

    /** How often the chunk of {@code key} was read lately (0 to 16 with a doorkeeper, else 15). */
    public int frequency(long key) {
        return sketch.frequency(key);
    }

    /** Whether the chunk of {@code key}, just missed, should be written to flash. */
    public boolean admit(long key) {
        long[] sample = victims;
        if (sample.length == 0) {
            return true;
        }
        // A random live one of the sample; a dead file's chunk goes with its segment whatever its past reads.
        int start = sample.length == 1 ? 0 : ThreadLocalRandom.current().nextInt(sample.length);
        for (int i = 0; i < sample.length; i++) {
            long victim = sample[(start + i) % sample.length];
            if (liveKey.test(victim)) {
                return sketch.frequency(key) > sketch.frequency(victim);
            }
        }
        return true;
    }

    /** Writer: the sampled keys of the segment reclaimed next; empty while no chunk has to go. */
    public void victims(long[] keys) {
        victims = keys.clone();
    }

    /** The sample published last (tests). */
    public long[] victims() {
        return victims.clone();
    }

    /** Memory the sketch takes. */
    public long bytes() {
        return sketch.bytes();
    }
}

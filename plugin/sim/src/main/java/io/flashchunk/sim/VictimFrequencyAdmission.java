package io.flashchunk.sim;

import io.flashchunk.cache.admission.FrequencySketch;

/**
 * TinyLFU's admission at segment granularity: a missed chunk is written to flash only when it was
 * read more often lately than a chunk of the segment it would in the end displace, by a
 * {@link FrequencySketch} of every read; anything is admitted while flash has room never used.
 */
final class VictimFrequencyAdmission implements Admission {
    private final FrequencySketch sketch;

    VictimFrequencyAdmission(long keys, int countersPerKey) {
        this(keys, countersPerKey, 0);
    }

    VictimFrequencyAdmission(long keys, int countersPerKey, int doorkeeperBitsPerKey) {
        this(keys, countersPerKey, doorkeeperBitsPerKey, FrequencySketch.SAMPLE_READS_PER_KEY);
    }

    VictimFrequencyAdmission(long keys, int countersPerKey, int doorkeeperBitsPerKey, int sampleReadsPerKey) {
        this.sketch = new FrequencySketch(keys, countersPerKey, doorkeeperBitsPerKey, sampleReadsPerKey);
    }

    @Override
    public void accessed(long key) {
        sketch.increment(key);
    }

    @Override
    public boolean admit(long key, long victim) {
        return victim == SegmentLog.NO_VICTIM || sketch.frequency(key) > sketch.frequency(victim);
    }
}

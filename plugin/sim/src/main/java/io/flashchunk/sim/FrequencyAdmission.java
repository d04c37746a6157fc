package io.flashchunk.sim;

import io.flashchunk.cache.admission.FrequencySketch;

/**
 * TinyLFU's admission without a victim to compare with: a missed chunk is written to flash when
 * it was read at least {@code threshold} times lately, by a {@link FrequencySketch} of every read;
 * anything is admitted while flash has room never used.
 */
final class FrequencyAdmission implements Admission {
    private final FrequencySketch sketch;
    private final int threshold;

    FrequencyAdmission(long keys, int threshold) {
        this.sketch = new FrequencySketch(keys);
        this.threshold = threshold;
    }

    @Override
    public void accessed(long key) {
        sketch.increment(key);
    }

    @Override
    public boolean admit(long key, long victim) {
        return victim == SegmentLog.NO_VICTIM || sketch.frequency(key) >= threshold;
    }
}

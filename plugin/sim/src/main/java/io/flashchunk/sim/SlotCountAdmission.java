package io.flashchunk.sim;

import io.flashchunk.cache.admission.FrequencySketch;

/**
 * Victim admission with less memory a chunk (a candidate for the terabyte issue's 8 bytes a chunk,
 * docs/engine.md "Toward 8 bytes a chunk"): a cached chunk's hits are counted in its index slot, in a
 * small saturating counter ({@link SegmentLog#hitCount}), and the {@link FrequencySketch} counts only
 * misses, so it is sized for fewer increments. A missed chunk is admitted when it was missed more often
 * lately than the chunk it would in the end displace was missed before its admission and hit since.
 * The slot counters are halved whenever the sketch halves its counters, so both forget at one pace.
 */
final class SlotCountAdmission implements Admission {
    private final FrequencySketch sketch;
    private final SegmentLog log;
    private final long resetAfter;
    private long increments;

    /**
     * @param log                    the log whose slots count hits
     * @param sketchKeys             keys the sketch is sized for (one counter a row each: 2 bytes a key)
     * @param doorkeeperBitsPerKey   bits of its doorkeeper a sketch key (0: none)
     * @param sampleMissesPerKey     misses a sketch key between two halvings
     */
    SlotCountAdmission(SegmentLog log, long sketchKeys, int doorkeeperBitsPerKey, int sampleMissesPerKey) {
        this.log = log;
        this.sketch = new FrequencySketch(sketchKeys, 1, doorkeeperBitsPerKey, sampleMissesPerKey);
        // the sketch halves after this many increments, then again after half as many (its own rule)
        this.resetAfter = (long) sampleMissesPerKey * Math.max(1, sketchKeys);
    }

    @Override
    public void accessed(long key) {
        // hits are counted in the slot by the log; misses here, in admit
    }

    @Override
    public boolean admit(long key, long victim) {
        sketch.increment(key);
        if (++increments >= resetAfter) {
            increments /= 2;
            log.halveHitCounts();
        }
        return victim == SegmentLog.NO_VICTIM || sketch.frequency(key) > sketch.frequency(victim) + log.hitCount(victim);
    }

    /** Misses of {@code key} lately, as the sketch estimates them. */
    int missesLately(long key) {
        return sketch.frequency(key);
    }

    /** Memory the sketch and its doorkeeper take. */
    long sketchBytes() {
        return sketch.bytes();
    }
}

package io.flashchunk.ycsb;

import java.util.SplittableRandom;

/**
 * Produces field values that LZ4 shrinks by a chosen fraction once Cassandra packs them into
 * 64 KB chunks: 0.47 means a chunk of values compresses to about 53% of its size, the reduction
 * the modified YCSB of the CAPI-Flash Cassandra study produced. Values mix random bytes with
 * repeated phrases; the mix is calibrated against the LZ4 fast compressor at construction, so
 * producing a value only copies bytes. The same seed gives the same values.
 *
 * <p>Values differ from one another as long as they are longer than the phrases the target
 * needs: 16 bytes up to a reduction of about 0.78, longer beyond, 256 bytes near 0.95.
 *
 * <p>Not thread-safe: give each load thread its own generator, with its own seed.
 */
public final class CompressibleValueGenerator {
    /** Beyond this, values would have to be almost all repetition. */
    public static final double MAX_TARGET_REDUCTION = 0.95;

    private final double targetReduction;
    private final int valueLength;
    private final ValueMix mix;
    private final MixedByteStream stream;

    /**
     * @param targetReduction the wanted 1 - compressed/original, in [0, {@value #MAX_TARGET_REDUCTION}]
     * @param valueLength bytes per value, at least 1
     * @param seed the seed all content derives from
     */
    public CompressibleValueGenerator(double targetReduction, int valueLength, long seed) {
        if (!(targetReduction >= 0.0 && targetReduction <= MAX_TARGET_REDUCTION)) {
            throw new IllegalArgumentException("targetReduction must be in [0.0, " + MAX_TARGET_REDUCTION
                    + "], got " + targetReduction);
        }
        if (valueLength < 1) {
            throw new IllegalArgumentException("valueLength must be at least 1, got " + valueLength);
        }
        this.targetReduction = targetReduction;
        this.valueLength = valueLength;
        // Separate streams for phrases, the calibration sample and the values, all from one seed.
        SplittableRandom seeds = new SplittableRandom(seed);
        long phraseSeed = seeds.nextLong();
        long sampleSeed = seeds.nextLong();
        long valueSeed = seeds.nextLong();
        this.mix = new ReductionCalibrator().calibrate(targetReduction, phraseSeed, sampleSeed);
        this.stream = new MixedByteStream(mix.dictionary(), mix.randomShare(), new SplittableRandom(valueSeed));
    }

    /** The next value: {@link #valueLength()} fresh bytes. */
    public byte[] nextValue() {
        byte[] value = new byte[valueLength];
        stream.fill(value, 0, valueLength);
        return value;
    }

    public double targetReduction() {
        return targetReduction;
    }

    public int valueLength() {
        return valueLength;
    }

    /** The reduction the calibrated mix measured; within 0.02 of the target. */
    public double calibratedReduction() {
        return mix.measuredReduction();
    }

    /** The share of random bytes the calibration settled on, for reports. */
    public double randomShare() {
        return mix.randomShare();
    }
}

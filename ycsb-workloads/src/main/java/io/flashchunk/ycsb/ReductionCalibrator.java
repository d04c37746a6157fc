package io.flashchunk.ycsb;

import java.util.SplittableRandom;

/**
 * Finds a {@link ValueMix} whose LZ4 reduction matches a target, by compressing samples.
 * Runs once per generator, so the hot path never compresses.
 */
final class ReductionCalibrator {
    /**
     * Phrase lengths to try, shortest first. Short phrases put random bytes close together, so
     * even short values differ from one another; long phrases cost fewer back-references per byte,
     * so only they reach the highest reductions.
     */
    private static final int[] PHRASE_LENGTHS = {16, 32, 64, 128, 256};
    /** An all-phrase stream must beat the target by this much, so random bytes can be mixed in. */
    private static final double HEADROOM = 0.02;
    /** The calibrated mix must measure this close to the target, or the generator refuses it. */
    static final double TOLERANCE = 0.02;
    /** Halvings of the random-share interval: 2^-16 is far below what LZ4 sizes can resolve. */
    private static final int BISECTION_STEPS = 16;

    private final ChunkReduction reduction;

    /** Calibrates for chunks of {@code chunkBytes}, the table's compression chunk length. */
    ReductionCalibrator(int chunkBytes) {
        this.reduction = new ChunkReduction(chunkBytes);
    }

    ValueMix calibrate(double targetReduction, long phraseSeed, long sampleSeed) {
        PhraseDictionary dictionary = shortestDictionaryReaching(targetReduction, phraseSeed, sampleSeed);
        // More random bytes means less reduction: bisect the share where the two cross.
        double low = 0.0;
        double high = 1.0;
        for (int step = 0; step < BISECTION_STEPS; step++) {
            double mid = (low + high) / 2;
            if (reduction.measure(dictionary, mid, sampleSeed) > targetReduction) {
                low = mid;
            } else {
                high = mid;
            }
        }
        double share = (low + high) / 2;
        double measured = reduction.measure(dictionary, share, sampleSeed);
        if (Math.abs(measured - targetReduction) > TOLERANCE) {
            throw new IllegalStateException("calibration could not reach an LZ4 reduction of " + targetReduction
                    + ": best mix measured " + measured);
        }
        return new ValueMix(dictionary, share, measured);
    }

    private PhraseDictionary shortestDictionaryReaching(double targetReduction, long phraseSeed, long sampleSeed) {
        PhraseDictionary dictionary = null;
        for (int phraseLength : PHRASE_LENGTHS) {
            dictionary = new PhraseDictionary(phraseLength, new SplittableRandom(phraseSeed));
            if (reduction.measure(dictionary, 0.0, sampleSeed) >= targetReduction + HEADROOM) {
                return dictionary;
            }
        }
        // None has headroom: the longest phrases come closest, and the tolerance check judges them.
        return dictionary;
    }
}

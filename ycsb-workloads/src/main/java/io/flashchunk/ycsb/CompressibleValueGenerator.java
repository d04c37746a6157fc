package io.flashchunk.ycsb;

import java.util.SplittableRandom;

/**
 * Produces field values that LZ4 shrinks by a chosen fraction once Cassandra packs them into
 * compression chunks (64 KB unless told otherwise): 0.47 means a chunk of values compresses to
 * about 53% of its size, the reduction the modified YCSB of the CAPI-Flash Cassandra study
 * produced. Values mix random characters with repeated phrases, all printable ASCII (so they are
 * valid CQL {@code text}); the mix is calibrated against the LZ4 fast compressor at construction,
 * so producing a value only copies bytes. The same seed gives the same values.
 *
 * <p>Values differ from one another as long as they are longer than the phrases the target
 * needs: 16 bytes up to a reduction of about 0.78, longer beyond, 256 bytes near 0.95.
 *
 * <p>{@link #nextValue()} walks one stream and is not thread-safe. {@link #valueFor} is: it
 * derives each value from the record key and field name alone, so a reader can recompute it.
 */
public final class CompressibleValueGenerator {
    /** Beyond this, values would have to be almost all repetition. */
    public static final double MAX_TARGET_REDUCTION = 0.95;
    /** The chunk length of the CAPI-Flash study's tables (Cassandra 5.0's default is 16 KB). */
    public static final int DEFAULT_CHUNK_BYTES = 64 * 1024;
    public static final int MIN_CHUNK_BYTES = 1024;
    public static final int MAX_CHUNK_BYTES = 1024 * 1024;
    /** Odd 64-bit multiplier for hashing key and field into a seed (the golden ratio). */
    private static final long HASH_MULTIPLIER = 0x9E3779B97F4A7C15L;

    private final double targetReduction;
    private final int valueLength;
    private final int chunkBytes;
    private final ValueMix mix;
    private final long keyedSeed;
    private final MixedByteStream stream;

    /** A generator calibrated for {@value #DEFAULT_CHUNK_BYTES}-byte chunks. */
    public CompressibleValueGenerator(double targetReduction, int valueLength, long seed) {
        this(targetReduction, valueLength, DEFAULT_CHUNK_BYTES, seed);
    }

    /**
     * @param targetReduction the wanted 1 - compressed/original, in [0, {@value #MAX_TARGET_REDUCTION}]
     * @param valueLength bytes per value from {@link #nextValue()}, at least 1
     * @param chunkBytes the compression chunk length to calibrate for: a power of two in
     *        [{@value #MIN_CHUNK_BYTES}, {@value #MAX_CHUNK_BYTES}]
     * @param seed the seed all content derives from
     */
    public CompressibleValueGenerator(double targetReduction, int valueLength, int chunkBytes, long seed) {
        if (!(targetReduction >= 0.0 && targetReduction <= MAX_TARGET_REDUCTION)) {
            throw new IllegalArgumentException("targetReduction must be in [0.0, " + MAX_TARGET_REDUCTION
                    + "], got " + targetReduction);
        }
        if (valueLength < 1) {
            throw new IllegalArgumentException("valueLength must be at least 1, got " + valueLength);
        }
        if (chunkBytes < MIN_CHUNK_BYTES || chunkBytes > MAX_CHUNK_BYTES || Integer.bitCount(chunkBytes) != 1) {
            throw new IllegalArgumentException("chunkBytes must be a power of two in [" + MIN_CHUNK_BYTES + ", "
                    + MAX_CHUNK_BYTES + "], got " + chunkBytes);
        }
        this.targetReduction = targetReduction;
        this.valueLength = valueLength;
        this.chunkBytes = chunkBytes;
        // Separate streams for phrases, the calibration sample and the values, all from one seed.
        SplittableRandom seeds = new SplittableRandom(seed);
        long phraseSeed = seeds.nextLong();
        long sampleSeed = seeds.nextLong();
        long valueSeed = seeds.nextLong();
        this.keyedSeed = seeds.nextLong();
        this.mix = new ReductionCalibrator(chunkBytes).calibrate(targetReduction, phraseSeed, sampleSeed);
        this.stream = newStream(valueSeed);
    }

    /** The next value: {@link #valueLength()} fresh bytes. */
    public byte[] nextValue() {
        byte[] value = new byte[valueLength];
        stream.fill(value, 0, valueLength);
        return value;
    }

    /**
     * The value of {@code field} in the record {@code key}: {@code length} bytes that depend only
     * on this generator's seed and target, the key, the field and the length (a shorter value is
     * a prefix of a longer one). Thread-safe.
     */
    public byte[] valueFor(String key, String field, int length) {
        if (length < 0) {
            throw new IllegalArgumentException("length must not be negative, got " + length);
        }
        byte[] value = new byte[length];
        newStream(seedOf(key, field)).fill(value, 0, length);
        return value;
    }

    public double targetReduction() {
        return targetReduction;
    }

    public int valueLength() {
        return valueLength;
    }

    public int chunkBytes() {
        return chunkBytes;
    }

    /** The reduction the calibrated mix measured; within 0.02 of the target. */
    public double calibratedReduction() {
        return mix.measuredReduction();
    }

    /** The share of random bytes the calibration settled on, for reports. */
    public double randomShare() {
        return mix.randomShare();
    }

    private MixedByteStream newStream(long streamSeed) {
        return new MixedByteStream(mix.dictionary(), mix.randomShare(), new SplittableRandom(streamSeed));
    }

    /** A 64-bit hash, so values of millions of records do not collide as 32-bit hashes would. */
    private long seedOf(String key, String field) {
        long hash = keyedSeed;
        hash = hash * HASH_MULTIPLIER + key.length();
        for (int i = 0; i < key.length(); i++) {
            hash = hash * HASH_MULTIPLIER + key.charAt(i);
        }
        for (int i = 0; i < field.length(); i++) {
            hash = hash * HASH_MULTIPLIER + field.charAt(i);
        }
        return hash;
    }
}

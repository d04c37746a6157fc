package io.flashchunk.ycsb;

import java.util.Properties;
import site.ycsb.WorkloadException;

/**
 * The workload properties that shape generated values: how much LZ4 should shrink them, at which
 * chunk length, and the seed they derive from.
 */
public record CompressionSettings(double reduction, int chunkKb, long seed) {
    public static final String REDUCTION = "flashchunk.compression.reduction";
    public static final String CHUNK_KB = "flashchunk.compression.chunkkb";
    public static final String SEED = "flashchunk.compression.seed";
    /** The LZ4 reduction of the CAPI-Flash study's dataset. */
    public static final double DEFAULT_REDUCTION = 0.47;
    public static final int DEFAULT_CHUNK_KB = CompressibleValueGenerator.DEFAULT_CHUNK_BYTES / 1024;
    /** A fixed default, so a load and a later run (or a reader checking values) agree. */
    public static final long DEFAULT_SEED = 1L;

    /** Reads the settings, or names the bad one. */
    public static CompressionSettings from(Properties properties) throws WorkloadException {
        double reduction = parse(properties, REDUCTION, DEFAULT_REDUCTION, Double::parseDouble);
        if (!(reduction >= 0.0 && reduction <= CompressibleValueGenerator.MAX_TARGET_REDUCTION)) {
            throw invalid(REDUCTION, properties, "a number in [0.0, " + CompressibleValueGenerator.MAX_TARGET_REDUCTION + "]");
        }
        int minKb = CompressibleValueGenerator.MIN_CHUNK_BYTES / 1024;
        int maxKb = CompressibleValueGenerator.MAX_CHUNK_BYTES / 1024;
        int chunkKb = parse(properties, CHUNK_KB, DEFAULT_CHUNK_KB, Integer::parseInt);
        if (chunkKb < minKb || chunkKb > maxKb || Integer.bitCount(chunkKb) != 1) {
            throw invalid(CHUNK_KB, properties, "a power of two from " + minKb + " to " + maxKb
                    + " (the table's chunk_length_in_kb)");
        }
        long seed = parse(properties, SEED, DEFAULT_SEED, Long::parseLong);
        return new CompressionSettings(reduction, chunkKb, seed);
    }

    public int chunkBytes() {
        return chunkKb * 1024;
    }

    /** A generator calibrated for these settings; {@code valueLength} only matters to {@code nextValue()}. */
    public CompressibleValueGenerator generator(int valueLength) {
        return new CompressibleValueGenerator(reduction, valueLength, chunkBytes(), seed);
    }

    private interface Parser<T> {
        T parse(String text);
    }

    private static <T> T parse(Properties properties, String name, T fallback, Parser<T> parser)
            throws WorkloadException {
        String text = properties.getProperty(name);
        if (text == null) {
            return fallback;
        }
        try {
            return parser.parse(text.trim());
        } catch (NumberFormatException e) {
            throw new WorkloadException(name + " is not a number: '" + text + "'");
        }
    }

    private static WorkloadException invalid(String name, Properties properties, String expected) {
        return new WorkloadException(name + " must be " + expected + ", got '" + properties.getProperty(name) + "'");
    }
}

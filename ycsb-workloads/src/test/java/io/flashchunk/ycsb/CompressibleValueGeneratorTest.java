package io.flashchunk.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CompressibleValueGeneratorTest {
    private static final int CHUNK_BYTES = 65536;
    /** 256 KB of values, as four chunks. */
    private static final int CHUNKS = 4;
    private static final double ALLOWED_ERROR = 0.05;

    @ParameterizedTest(name = "target {0}, {1}-byte values")
    @CsvSource({
        "0.0, 100",
        "0.3, 100",
        "0.47, 100",
        "0.7, 100",
        "0.47, 1",
        "0.47, 1000",
        "0.7, 70000",
        "0.95, 1000",
    })
    void chunksOfValuesCompressByTheTargetFraction(double target, int valueLength) {
        CompressibleValueGenerator generator = new CompressibleValueGenerator(target, valueLength, 7L);

        double reduction = lz4ReductionOfChunks(generator);

        assertEquals(target, reduction, ALLOWED_ERROR,
                "LZ4 reduction of " + CHUNKS + " chunks of " + valueLength + "-byte values");
    }

    @Test
    void calibrationReportsAReductionNearTheTarget() {
        CompressibleValueGenerator generator = new CompressibleValueGenerator(0.47, 100, 3L);

        assertEquals(0.47, generator.calibratedReduction(), 0.02);
        assertTrue(generator.randomShare() > 0.0 && generator.randomShare() < 1.0,
                "half-compressible values need both random bytes and phrases, share " + generator.randomShare());
    }

    @Test
    void sameSeedGivesSameValues() {
        CompressibleValueGenerator first = new CompressibleValueGenerator(0.47, 100, 42L);
        CompressibleValueGenerator second = new CompressibleValueGenerator(0.47, 100, 42L);

        for (int i = 0; i < 1000; i++) {
            assertArrayEquals(first.nextValue(), second.nextValue(), "value " + i);
        }
    }

    @Test
    void differentSeedsGiveDifferentValues() {
        CompressibleValueGenerator first = new CompressibleValueGenerator(0.47, 100, 1L);
        CompressibleValueGenerator second = new CompressibleValueGenerator(0.47, 100, 2L);

        assertFalse(ByteBuffer.wrap(first.nextValue()).equals(ByteBuffer.wrap(second.nextValue())));
    }

    @ParameterizedTest(name = "target {0}")
    @ValueSource(doubles = {0.0, 0.3, 0.47, 0.7})
    void everyValueDiffers(double target) {
        CompressibleValueGenerator generator = new CompressibleValueGenerator(target, 100, 11L);
        Set<ByteBuffer> seen = new HashSet<>();

        for (int i = 0; i < 5000; i++) {
            byte[] value = generator.nextValue();
            assertEquals(100, value.length);
            assertTrue(seen.add(ByteBuffer.wrap(value)), "value " + i + " repeats an earlier one");
        }
    }

    @ParameterizedTest
    @ValueSource(doubles = {-0.01, 0.951, 1.0, Double.NaN})
    void rejectsTargetOutsideTheRange(double target) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new CompressibleValueGenerator(target, 100, 1L));

        assertTrue(e.getMessage().contains("targetReduction"), e.getMessage());
        assertTrue(e.getMessage().contains(String.valueOf(target)), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void rejectsValueLengthBelowOne(int valueLength) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new CompressibleValueGenerator(0.47, valueLength, 1L));

        assertTrue(e.getMessage().contains("valueLength"), e.getMessage());
        assertTrue(e.getMessage().contains(String.valueOf(valueLength)), e.getMessage());
    }

    @Test
    void acceptsBothEndsOfTheRange() {
        assertEquals(0.0, new CompressibleValueGenerator(0.0, 1, 1L).targetReduction());
        assertEquals(0.95, new CompressibleValueGenerator(0.95, 1, 1L).targetReduction());
    }

    /**
     * Packs values back to back into 64 KB chunks, values spanning chunk edges as rows do in an
     * SSTable, compresses each chunk with the compressor Cassandra's LZ4Compressor uses, and
     * returns 1 - compressed / original over all chunks.
     */
    private static double lz4ReductionOfChunks(CompressibleValueGenerator generator) {
        LZ4Compressor compressor = LZ4Factory.fastestInstance().fastCompressor();
        byte[] chunk = new byte[CHUNK_BYTES];
        byte[] compressed = new byte[compressor.maxCompressedLength(CHUNK_BYTES)];
        long compressedBytes = 0;
        int filled = 0;
        int chunksDone = 0;
        while (chunksDone < CHUNKS) {
            byte[] value = generator.nextValue();
            for (int copied = 0; copied < value.length && chunksDone < CHUNKS; ) {
                int n = Math.min(value.length - copied, CHUNK_BYTES - filled);
                System.arraycopy(value, copied, chunk, filled, n);
                copied += n;
                filled += n;
                if (filled == CHUNK_BYTES) {
                    compressedBytes += compressor.compress(chunk, 0, CHUNK_BYTES, compressed, 0, compressed.length);
                    chunksDone++;
                    filled = 0;
                }
            }
        }
        return 1.0 - (double) compressedBytes / ((long) CHUNKS * CHUNK_BYTES);
    }
}

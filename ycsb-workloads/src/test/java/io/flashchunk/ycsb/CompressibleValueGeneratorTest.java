package io.flashchunk.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.HashSet;
import java.util.Set;
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

    @Test
    void keyedValuesDependOnlyOnKeyFieldAndLength() {
        CompressibleValueGenerator first = new CompressibleValueGenerator(0.47, 100, 42L);
        CompressibleValueGenerator second = new CompressibleValueGenerator(0.47, 7, 42L);
        second.nextValue();

        assertArrayEquals(first.valueFor("user1", "field3", 500), second.valueFor("user1", "field3", 500));
        assertArrayEquals(first.valueFor("user1", "field3", 500), first.valueFor("user1", "field3", 500),
                "asking twice gives the same value");
        byte[] longer = first.valueFor("user1", "field3", 800);
        assertArrayEquals(first.valueFor("user1", "field3", 500), Arrays.copyOf(longer, 500),
                "a shorter value is a prefix of a longer one");
    }

    @Test
    void keyedValuesDifferBetweenKeysFieldsAndSeeds() {
        CompressibleValueGenerator generator = new CompressibleValueGenerator(0.47, 1, 42L);
        Set<ByteBuffer> seen = new HashSet<>();

        for (int key = 0; key < 500; key++) {
            for (int field = 0; field < 10; field++) {
                byte[] value = generator.valueFor("user" + key, "field" + field, 100);
                assertTrue(seen.add(ByteBuffer.wrap(value)), "user" + key + "/field" + field + " repeats a value");
            }
        }
        // Concatenations that read alike must still differ.
        assertFalse(Arrays.equals(generator.valueFor("user1", "1field", 100), generator.valueFor("user11", "field", 100)));
        assertFalse(Arrays.equals(generator.valueFor("user1", "field1", 100),
                new CompressibleValueGenerator(0.47, 1, 43L).valueFor("user1", "field1", 100)));
    }

    @Test
    void keyedValuesAreTheSameFromManyThreads() throws Exception {
        CompressibleValueGenerator generator = new CompressibleValueGenerator(0.47, 1, 9L);
        List<byte[]> expected = new ArrayList<>();
        for (int key = 0; key < 200; key++) {
            expected.add(generator.valueFor("user" + key, "field0", 300));
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int thread = 0; thread < 4; thread++) {
                results.add(pool.submit(() -> {
                    for (int key = 0; key < 200; key++) {
                        if (!Arrays.equals(expected.get(key), generator.valueFor("user" + key, "field0", 300))) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (Future<Boolean> result : results) {
                assertTrue(result.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest(name = "target {0}")
    @ValueSource(doubles = {0.0, 0.47, 0.95})
    void valuesArePrintableAsciiSoTheyAreCqlText(double target) {
        CompressibleValueGenerator generator = new CompressibleValueGenerator(target, 5000, 3L);
        byte[] value = generator.nextValue();
        byte[] keyed = generator.valueFor("user7", "field7", 5000);

        for (byte[] bytes : List.of(value, keyed)) {
            for (byte b : bytes) {
                assertTrue(b >= 0x20 && b <= 0x7e, "byte " + b + " is not printable ASCII");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 512, 3000, 2 * 1024 * 1024})
    void rejectsChunkSizesCassandraDoesNotUse(int chunkBytes) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new CompressibleValueGenerator(0.47, 100, chunkBytes, 1L));

        assertTrue(e.getMessage().contains("chunkBytes"), e.getMessage());
        assertTrue(e.getMessage().contains(String.valueOf(chunkBytes)), e.getMessage());
    }

    @Test
    void rejectsNegativeKeyedLength() {
        CompressibleValueGenerator generator = new CompressibleValueGenerator(0.47, 1, 1L);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> generator.valueFor("user1", "field0", -1));
        assertTrue(e.getMessage().contains("length"), e.getMessage());
    }

    /** The reduction of four 64 KB chunks of consecutive values, as Cassandra's LZ4Compressor would see them. */
    private static double lz4ReductionOfChunks(CompressibleValueGenerator generator) {
        Lz4Chunks chunks = new Lz4Chunks(CHUNK_BYTES);
        while (chunks.fullChunks() < CHUNKS) {
            chunks.add(generator.nextValue());
        }
        return chunks.reduction();
    }
}

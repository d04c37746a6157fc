package io.flashchunk.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Keyed values, as the YCSB workload writes them, reach the target reduction under the LZ4 library
 * Cassandra 5.0.9 ships, at the chunk lengths tables use: 4 KB, Cassandra 5.0's default 16 KB, and
 * the paper's 64 KB.
 */
class CassandraCompressionTest {
    private static final double ALLOWED_ERROR = 0.03;
    private static final int RECORDS = 300;
    private static final int FIELDS = 10;

    @ParameterizedTest(name = "target {0}, {1} KB chunks, {2}-byte fields")
    @CsvSource({
        "0.47, 64, 6400",
        "0.47, 16, 6400",
        "0.47, 4, 6400",
        "0.47, 64, 1000",
        "0.47, 16, 100",
        "0.30, 16, 1000",
        "0.70, 64, 1000",
    })
    void recordsCompressByTheTarget(double target, int chunkKb, int fieldLength) {
        CompressibleValueGenerator generator = new CompressibleValueGenerator(target, 1, chunkKb * 1024, 5L);
        Lz4Chunks chunks = new Lz4Chunks(chunkKb * 1024);

        for (int record = 0; record < RECORDS; record++) {
            for (int field = 0; field < FIELDS; field++) {
                chunks.add(generator.valueFor("user" + (record * 7919L), "field" + field, fieldLength));
            }
        }

        assertTrue(chunks.fullChunks() >= 4, "too few chunks: " + chunks.fullChunks());
        assertEquals(target, chunks.reduction(), ALLOWED_ERROR, "LZ4 reduction over " + chunks.fullChunks() + " chunks");
    }

    @org.junit.jupiter.api.Test
    void theLz4LibraryIsTheOneCassandraShips() {
        String jar = LZ4Factory.class.getProtectionDomain().getCodeSource().getLocation().getPath();

        assertTrue(jar.contains("at/yawk/lz4/lz4-java/1.10.1/"), "LZ4Factory came from " + jar);
    }
}

package io.flashchunk.ycsb.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** Option checks and the CQL of create-table; the integration test runs it against a node. */
class CreateTableCommandTest {
    private static final String COLUMNS = "(y_id text PRIMARY KEY,field0 text,field1 text,field2 text)";

    private static String cql(String... args) {
        CreateTableCommand command = new CreateTableCommand();
        new CommandLine(command).parseArgs(args);
        return command.validatedTable().asCql();
    }

    @Test
    void compressorAndChunkLength() {
        assertEquals("CREATE TABLE ycsb.usertable " + COLUMNS
                        + " WITH compression={'class':'ZstdCompressor','chunk_length_in_kb':64}",
                cql("--fields", "3", "--compressor", "ZstdCompressor", "--chunk-kb", "64"));
    }

    @Test
    void compressionLevel() {
        assertEquals("CREATE TABLE ycsb.usertable " + COLUMNS
                        + " WITH compression={'class':'ZstdCompressor','chunk_length_in_kb':64,'compression_level':9}",
                cql("--fields", "3", "--compressor", "ZstdCompressor", "--chunk-kb", "64", "--compression-level", "9"));
    }

    @Test
    void chunkLengthAloneMeansLz4() {
        assertEquals("CREATE TABLE ycsb.usertable " + COLUMNS
                        + " WITH compression={'class':'LZ4Compressor','chunk_length_in_kb':16}",
                cql("--fields", "3", "--chunk-kb", "16"));
    }

    @Test
    void noCompression() {
        assertEquals("CREATE TABLE bench.t " + COLUMNS + " WITH compression={'enabled':'false'}",
                cql("--fields", "3", "--keyspace", "bench", "--table", "t", "--no-compression"));
    }

    @Test
    void cassandrasDefaultsWhenNothingIsSaid() {
        String cql = cql();

        assertTrue(cql.startsWith("CREATE TABLE ycsb.usertable (y_id text PRIMARY KEY,field0 text,"), cql);
        assertTrue(cql.endsWith("field9 text)"), cql);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--no-compression --chunk-kb 64|--no-compression",
        "--no-compression --compressor LZ4Compressor|--no-compression",
        "--no-compression --compression-level 3|--no-compression",
        "--compression-level 3|--compression-level",
        "--chunk-kb 48|--chunk-kb",
        "--chunk-kb 0|--chunk-kb",
        "--fields 0|--fields",
        "--replication-factor 0|--replication-factor",
        "--native-port 70000|--native-port",
        "--compressor=|--compressor",
    })
    void contradictoryOrBadOptionsAreRefused(String args, String named) {
        ParameterException e = assertThrows(ParameterException.class,
                () -> cql(args.split(" ")));

        assertTrue(e.getMessage().startsWith(named), e.getMessage());
    }
}

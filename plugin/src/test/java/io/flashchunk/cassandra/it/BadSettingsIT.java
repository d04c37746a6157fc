package io.flashchunk.cassandra.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * A bad flash_chunk_cache setting is one clear log line and a node that starts with Cassandra's own
 * chunk cache; with strict: true the node refuses to start, with the same message. One case a stage
 * where a setting can fail: the loader (a malformed block), opening a device (missing), sizing it (too
 * small); each setting's own message is CacheSettingsTest's.
 */
class BadSettingsIT {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "missing device | {devices: [{path: /nonexistent/flash.img}]} | /nonexistent/flash.img",
            "capacity too large | {devices: [{path: @DEVICE@, capacity: 1TiB}]} | is larger than the device (67108864 bytes)",
            "malformed block | [devices, /dev/nvme0n1] | flash_chunk_cache: must be a block of settings",
    })
    void aBadSettingDisablesTheFlashCacheWithOneMessage(String name, String block, String expected) throws Exception {
        try (CassandraNode node = CassandraNode.create("bad-" + name.replace(' ', '-'), true, "")) {
            writeSettings(node, block);
            node.start();
            List<String> errors = node.systemLog().lines()
                    .filter(line -> line.contains("flash chunk cache disabled")).toList();
            assertEquals(1, errors.size(), "expected one line, got " + errors);
            assertTrue(errors.get(0).contains(expected), errors.get(0) + " should name: " + expected);
            // Cassandra's own chunk cache serves, with the template's size.
            assertTrue(FlashCacheReadsIT.chunkCacheLine(node).contains("capacity 224 MiB"),
                    FlashCacheReadsIT.chunkCacheLine(node));
            TestTables.createKeyspace(node.session());
            TestTables.createTable(node.session(), "t", "LZ4Compressor", 16);
            TestTables.write(node.session(), "t", 0, 50, 1);
            node.nodetool("flush", TestTables.KEYSPACE);
            TestTables.readAndCheck(node.session(), "t", 0, 50, TestTables.versions(50, 1));
        }
    }

    @Test
    void strictModeRefusesToStart() throws Exception {
        try (CassandraNode node = CassandraNode.create("bad-strict", true, "")) {
            writeSettings(node, "{strict: true, devices: [{path: /nonexistent/flash.img}]}");
            CassandraNode.ScriptResult result = node.startResult();
            assertNotEquals(0, result.exitCode(), "the node started: " + result.output());
            String log = node.systemLog() + result.output();
            assertTrue(log.contains("flash chunk cache (strict: true): flash_chunk_cache: the cache could not start")
                    && log.contains("/nonexistent/flash.img"), result.output());
        }
    }

    private static void writeSettings(CassandraNode node, String block) throws Exception {
        java.nio.file.Path device = node.createDevice(64L << 20);
        java.nio.file.Files.writeString(node.dir.resolve("conf/cassandra.yaml"),
                "chunk_cache_class: " + CassandraNode.CACHE_CLASS + "\nflash_chunk_cache: "
                        + block.replace("@DEVICE@", device.toString()) + "\n",
                java.nio.file.StandardOpenOption.APPEND);
    }
}

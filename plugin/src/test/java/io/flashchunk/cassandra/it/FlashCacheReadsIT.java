package io.flashchunk.cassandra.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.text.DecimalFormat;
import java.util.List;
import java.util.Map;
import java.util.LinkedHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.InstanceNotFoundException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Compressed tables read through the flash cache on a real node, against a node that runs the same
 * agent and loader without {@code chunk_cache_class} (so: stock Cassandra).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FlashCacheReadsIT {
    static final int ROWS = 500;
    static final String RECORDING = "chunk-reads.bin";
    /** Table name to (compressor, chunk KiB): LZ4 and Zstd at 4, 16 and 64 KB chunks, and no compression. */
    static final Map<String, Object[]> TABLES = new LinkedHashMap<>();

    static {
        for (int kb : new int[] {4, 16, 64}) {
            TABLES.put("lz4_" + kb, new Object[] {"LZ4Compressor", kb});
            TABLES.put("zstd_" + kb, new Object[] {"ZstdCompressor", kb});
        }
        // Uncompressed data is read in chunks too (standard access; Cassandra sizes them per SSTable).
        TABLES.put("uncompressed", new Object[] {null, 0});
    }

    private CassandraNode flash;
    private CassandraNode stock;

    @BeforeAll
    void startNodes() throws Exception {
        // 1 MiB segments: the tables' 8 MB of chunks fill several, so most second reads come from flash.
        // The slow-device breaker out of the way: here misses come from the page cache in under a
        // millisecond while this VM's disk, busy with both nodes' writes, serves hits in 10-25 ms, and
        // the breaker rightly takes such a device out of use (seen after DeviceErrorsIT, on the old code
        // too); what is tested here is that hits are served and counted. The breaker has tests of its own.
        // LZ4 tables' chunks stored compressed (auto), and one Zstd table's too (set apart), the rest as they are.
        flash = CassandraNode.withFlashCache("reads-flash", 256L << 20,
                "checkpoint_interval_ms: 5s\nsegment_size_mib: 1\nslow_read_ms: 60s\nchunks_on_flash: auto\n"
                        + "chunks_on_flash_by_table:\n  " + TestTables.KEYSPACE + ".zstd_16: compressed\n"
                        + "  system_schema.tables: uncompressed", "");
        flash.jvmOption("-Dflashchunk.record_reads=" + flash.dir.resolve(RECORDING));
        stock = CassandraNode.create("reads-stock", true, "");
        for (CassandraNode node : List.of(flash, stock)) {
            node.start();
            TestTables.createKeyspace(node.session());
            TABLES.forEach((table, options) -> {
                TestTables.createTable(node.session(), table, (String) options[0], (Integer) options[1]);
                TestTables.write(node.session(), table, 0, ROWS, 1);
            });
            node.nodetool("flush", TestTables.KEYSPACE);
        }
    }

    @AfterAll
    void stopNodes() {
        for (CassandraNode node : new CassandraNode[] {flash, stock}) {
            if (node != null) {
                node.close();
            }
        }
    }

    @Test
    @Order(1)
    void everyRowReadThroughTheFlashCacheEqualsTheStockNode() {
        int[] versions = TestTables.versions(ROWS, 1);
        for (String table : TABLES.keySet()) {
            List<String> throughFlash = TestTables.readAndCheck(flash.session(), table, 0, ROWS, versions);
            List<String> fromStock = TestTables.readAndCheck(stock.session(), table, 0, ROWS, versions);
            assertEquals(fromStock, throughFlash, table);
        }
    }

    @Test
    @Order(2)
    void chunksOfTheTablesSetToBeStoredCompressedAreAndTheOthersAreNot() throws Exception {
        String log = flash.systemLog();
        for (String table : TABLES.keySet()) {
            boolean compressed = table.startsWith("lz4_") || table.equals("zstd_16");
            String line = "chunks of " + TestTables.KEYSPACE + "." + table + " are stored "
                    + (compressed ? "compressed" : "uncompressed") + " on flash ("
                    + (table.equals("zstd_16") ? "as set"
                            : "auto, the table's compressor: " + (TABLES.get(table)[0] == null ? "none" : TABLES.get(table)[0]))
                    + ")";
            assertTrue(log.contains(line), "the log says: " + line);
        }
        // The tables were created after the node started its clients: the name set apart was then unknown.
        String unknown = "flash_chunk_cache.chunks_on_flash_by_table names %s, which this node's schema does not know";
        assertTrue(log.contains(String.format(unknown, TestTables.KEYSPACE + ".zstd_16")), "warned: not yet a table");
        assertFalse(log.contains(String.format(unknown, "system_schema.tables")), "a table the schema knows is not warned of");
        Eventually.until("the write queue to drain", () -> flash.flashStat("QueuedBytes") == 0);
        long compressedChunks = flash.flashStat("CompressedChunks");
        long chunkBytes = flash.flashStat("CompressedChunkBytes");
        long payloadBytes = flash.flashStat("CompressedPayloadBytes");
        // 4 tables of 500 rows of 1.5-3 KB in 4, 16 and 64 KiB chunks: at least 750 KB each, a chunk or more a 64 KiB
        assertTrue(compressedChunks >= 4 * (ROWS * 1500 / 65536), "chunks stored compressed: " + compressedChunks);
        assertTrue(payloadBytes > 0 && payloadBytes * 10 < chunkBytes * 9,
                "these rows' runs of letters compress: " + payloadBytes + " B of " + chunkBytes + " B");
        // lz4_4's 4 KiB chunks: a record takes a block however well its chunk compresses, so none is
        long notWorth = flash.flashStat("ChunksNotWorthCompressing");
        assertTrue(notWorth >= ROWS * 1500 / 4096, "4 KiB chunks stored as they are: " + notWorth);
    }

    @Test
    @Order(3)
    void aSecondReadIsServedFromFlashAndCountedInCassandrasMetrics() throws Exception {
        int[] versions = TestTables.versions(ROWS, 1);
        Eventually.until("the write queue to drain", () -> flash.flashStat("QueuedBytes") == 0);
        long flashHits = flash.flashStat("FlashHits");
        long cacheHits = flash.flashStat("Hits");
        long hits = cassandraCount(flash, "Hits");
        long misses = cassandraCount(flash, "Misses");
        for (String table : TABLES.keySet()) {
            TestTables.readAndCheck(flash.session(), table, 0, ROWS, versions);
        }
        long newFlashHits = flash.flashStat("FlashHits") - flashHits;
        long newCacheHits = flash.flashStat("Hits") - cacheHits;
        long newHits = cassandraCount(flash, "Hits") - hits;
        long newMisses = cassandraCount(flash, "Misses") - misses;
        // Each of the 7 x 500 rows needs at least one chunk; all of them were read once before. Chunks
        // of the segment still open are served from its buffer (memory hits), the rest from flash.
        assertTrue(newCacheHits >= TABLES.size() * ROWS, "flash cache hits on the second read: " + newCacheHits);
        assertTrue(newFlashHits > newCacheHits / 2, "flash hits on the second read: " + newFlashHits + " of " + newCacheHits);
        assertTrue(newHits >= newCacheHits, "Cassandra's chunk-cache hits " + newHits + " < flash cache hits " + newCacheHits);
        assertTrue(newMisses * 20 < newHits, "misses on the second read: " + newMisses + " against " + newHits + " hits");
        assertEquals(0, flash.flashStat("ChecksumErrors"));
        assertEquals(0, flash.flashStat("CacheFailures"));
        assertTrue(flash.flashStat("ChunksDecompressed") > 0, "compressed chunks served from flash");
        // Rows of 1.5-3 KB: in 4 KiB chunks many span two, read together on the first (missing) read,
        // placed side by side, so the second read serves some next chunks from the same I/O (every
        // value was checked above).
        assertTrue(flash.flashStat("FollowersServed") > 0, "followers served: " + flash.flashStat("FollowersServed")
                + " of " + flash.flashStat("PairedReads") + " paired reads");
    }

    @Test
    @Order(4)
    void nodetoolInfoAndSystemViewsShowTheFlashCache() throws Exception {
        String line = chunkCacheLine(flash);
        long capacity = flash.flashStat("CapacityBytes");
        assertTrue(line.contains("capacity " + mebibytes(capacity)), line + " (expected capacity " + capacity + ")");
        Matcher m = Pattern.compile("entries (\\d+), .* (\\d+) misses, (\\d+) requests, ([0-9.]+) recent hit rate")
                .matcher(line);
        assertTrue(m.find(), line);
        assertTrue(Long.parseLong(m.group(1)) >= TABLES.size(), line);
        assertTrue(Double.parseDouble(m.group(4)) > 0.3, "hit rate in " + line);

        com.datastax.oss.driver.api.core.cql.Row row = flash.session()
                .execute("SELECT capacity_bytes, entry_count, hit_count FROM system_views.caches WHERE name = 'chunks'").one();
        assertTrue(row != null, "no chunks row in system_views.caches");
        assertEquals(capacity, row.getLong("capacity_bytes"));
        assertTrue(row.getInt("entry_count") >= TABLES.size());
        assertTrue(row.getLong("hit_count") >= flash.flashStat("FlashHits"), "hit_count " + row.getLong("hit_count"));
    }

    @Test
    @Order(5)
    void withoutChunkCacheClassTheNodeKeepsCassandrasOwnCache() throws Exception {
        String line = chunkCacheLine(stock);
        // The template's file_cache_size of 256 MiB, less Cassandra's 32 MiB reserve.
        assertTrue(line.contains("capacity 224 MiB"), line);
        assertThrows(InstanceNotFoundException.class,
                () -> stock.jmxAttribute("io.flashchunk:type=FlashChunkCache", "Hits"));
        assertFalse(stock.systemLog().contains("flash chunk cache"), "the stock node mentions the flash cache");
    }

    @Test
    @Order(6)
    void everyChunkReadIsRecordedForTheSimulatorWhenTheJvmOptionAsks() throws Exception {
        long hits = flash.flashStat("Hits");
        flash.stop(); // the recorder's buffer is written out as the cache closes
        java.nio.file.Path file = flash.dir.resolve(RECORDING);
        long records = java.nio.file.Files.size(file) / 12;
        assertEquals(0, java.nio.file.Files.size(file) % 12, "whole (long key, int bytes) records");
        assertTrue(records >= hits, records + " reads recorded, fewer than the " + hits + " hits alone");
        java.util.Set<Long> files = new java.util.HashSet<>();
        try (java.io.DataInputStream in = new java.io.DataInputStream(new java.io.BufferedInputStream(
                java.nio.file.Files.newInputStream(file)))) {
            for (long i = 0; i < records; i++) {
                long key = in.readLong();
                int bytes = in.readInt();
                files.add(key >>> 32);
                assertTrue(bytes > 0 && bytes <= 65536, "read " + i + ": " + bytes + " bytes");
            }
        }
        assertFalse(files.contains(0L), "file ids start at 1");
        assertTrue(files.size() >= TABLES.size(), "reads of " + files.size() + " files, " + TABLES.size() + " tables");
        assertTrue(flash.systemLog().contains("recording stopped: the cache closed"), "the recorder's closing line");
    }

    static String chunkCacheLine(CassandraNode node) {
        return node.nodetool("info").lines().filter(l -> l.startsWith("Chunk Cache")).findFirst()
                .orElseThrow(() -> new AssertionError("no Chunk Cache line in nodetool info"));
    }

    static long cassandraCount(CassandraNode node, String meter) throws Exception {
        return ((Number) node.jmxAttribute("org.apache.cassandra.metrics:type=Cache,scope=ChunkCache,name=" + meter,
                "Count")).longValue();
    }

    /** As nodetool prints sizes (FileUtils.stringifyFileSize). */
    static String mebibytes(long bytes) {
        return new DecimalFormat("#.##").format(bytes / 1048576.0) + " MiB";
    }
}

package io.flashchunk.cassandra.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.CqlSession;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A chunk of a deleted or rewritten SSTable is never served: compaction (with early open of its
 * output), DROP TABLE and TRUNCATE, each followed by reads that must see only current data.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InvalidationIT {
    /** 1 MiB segments: the 256 MiB device then holds many, as a real device does at 16 MiB. */
    private static final String SEGMENTS = "segment_size_mib: 1";

    private CassandraNode node;

    @BeforeAll
    void startNode() throws Exception {
        // Early open every MiB of compaction output, so readers see files still being written.
        node = CassandraNode.withFlashCache("invalidation", 256L << 20, "checkpoint_interval_ms: 5s\n" + SEGMENTS,
                "sstable_preemptive_open_interval: 1MiB");
        node.start();
        TestTables.createKeyspace(node.session());
    }

    @AfterAll
    void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void afterCompactionOnlyCurrentVersionsAreRead() throws Exception {
        CqlSession session = node.session();
        // Early open needs readable index pages, hence many partitions: 24,000 short rows, 3 flushes.
        String table = "many_compacted";
        int rows = 24000;
        TestTables.createTable(session, table, "LZ4Compressor", 16);
        int[] versions = new int[rows];
        // Three SSTables; each flush rewrites every third row, so compaction output differs from every input.
        for (int version = 1; version <= 3; version++) {
            for (int id = 0; id < rows; id++) {
                if (version == 1 || id % 3 == version - 2) {
                    versions[id] = version;
                }
            }
            writeVersion(session, table, rows, version);
            node.nodetool("flush", TestTables.KEYSPACE, table);
        }
        // Each read merges all three inputs: every chunk of every input is cached after this.
        TestTables.readAndCheck(session, table, 0, rows, versions);
        long invalidations = node.flashStat("Invalidations");

        // Compact while reading: readers move to early-opened output as it is written.
        CompletableFuture<String> compaction = CompletableFuture.supplyAsync(
                () -> node.nodetool("compact", TestTables.KEYSPACE, table));
        AtomicInteger passes = new AtomicInteger();
        while (!compaction.isDone() || passes.get() == 0) {
            TestTables.readAndCheck(session, table, 0, rows, versions);
            passes.incrementAndGet();
        }
        compaction.join();
        assertTrue(node.flashStat("PositionInvalidations") > 0, "the compaction opened no output early");
        TestTables.readAndCheck(session, table, 0, rows, versions);
        // The inputs are deleted: their chunks leave the cache.
        Eventually.until("the compacted inputs' chunks to be dropped",
                () -> node.flashStat("Invalidations") > invalidations);
        assertEquals(0, node.flashStat("ChecksumErrors"));
    }

    @Test
    void truncateAndDropLeaveNothingBehind() throws Exception {
        CqlSession session = node.session();
        int rows = 400;
        for (String table : new String[] {"truncated", "dropped"}) {
            TestTables.createTable(session, table, "ZstdCompressor", 4);
            TestTables.write(session, table, 0, rows, 1);
            node.nodetool("flush", TestTables.KEYSPACE, table);
            TestTables.readAndCheck(session, table, 0, rows, TestTables.versions(rows, 1));
            TestTables.readAndCheck(session, table, 0, rows, TestTables.versions(rows, 1));
        }
        session.execute("TRUNCATE " + TestTables.KEYSPACE + ".truncated");
        assertEquals(0, session.execute("SELECT id FROM " + TestTables.KEYSPACE + ".truncated").all().size());
        session.execute("DROP TABLE " + TestTables.KEYSPACE + ".dropped");
        TestTables.createTable(session, "dropped", "ZstdCompressor", 4);
        assertEquals(0, session.execute("SELECT id FROM " + TestTables.KEYSPACE + ".dropped").all().size());
        for (String table : new String[] {"truncated", "dropped"}) {
            TestTables.write(session, table, 0, rows, 2);
            node.nodetool("flush", TestTables.KEYSPACE, table);
            TestTables.readAndCheck(session, table, 0, rows, TestTables.versions(rows, 2));
            TestTables.readAndCheck(session, table, 0, rows, TestTables.versions(rows, 2));
        }
        assertTrue(node.flashStat("Invalidations") > 0);
    }

    /**
     * DROP TABLE of a table cached into segments of its own: its chunks leave the index at once
     * (counted as dead-file chunks), and its segments are freed by the cache's own checkpoints, with
     * no operator asking for one and nothing else read (which rule makes them, for the dead space or
     * by time after the node's own tables' chunks, is CacheEngineTest's to tell); the other table is
     * still served right.
     */
    @Test
    void aDroppedTablesFlashIsFreedWithoutAskingForACheckpoint() throws Exception {
        CqlSession session = node.session();
        String dropped = "space_dropped";
        String kept = "space_kept";
        int droppedRows = 3000; // about 7 MB in 16 KiB chunks: 400-odd chunks, eight or so 1 MiB segments
        int keptRows = 400;
        TestTables.createTable(session, dropped, "LZ4Compressor", 16);
        TestTables.createTable(session, kept, "LZ4Compressor", 16);
        TestTables.write(session, dropped, 0, droppedRows, 1);
        TestTables.write(session, kept, 0, keptRows, 1);
        node.nodetool("flush", TestTables.KEYSPACE);
        for (int pass = 0; pass < 2; pass++) { // the first offers the chunks, the second finds them cached
            TestTables.readAndCheck(session, dropped, 0, droppedRows, TestTables.versions(droppedRows, 1));
        }
        TestTables.readAndCheck(session, kept, 0, keptRows, TestTables.versions(keptRows, 1));
        TestTables.readAndCheck(session, kept, 0, keptRows, TestTables.versions(keptRows, 1));
        long entries = node.flashStat("Entries");
        long removedBefore = node.flashStat("DeadFileChunksRemoved");
        long doomedBefore = node.flashStat("MostlyDeadSegmentsDoomed");
        long usedBefore = node.flashStat("UsedBytes");
        long checkpointsBefore = node.flashStat("Checkpoints");

        session.execute("DROP TABLE " + TestTables.KEYSPACE + "." + dropped);
        Eventually.until("the dropped table's chunks to leave the index",
                () -> node.flashStat("DeadFilesPending") == 0 && node.flashStat("DeadFileChunksRemoved") - removedBefore >= 300);
        long removed = node.flashStat("DeadFileChunksRemoved") - removedBefore;
        // (the node's own tables may be read meanwhile: a few chunks come in)
        assertTrue(node.flashStat("Entries") <= entries - 300, "they left the index: " + node.flashStat("Entries")
                + " of " + entries + ", " + removed + " removed");
        // Freed by the cache's own checkpoints, no other read or checkpoint asked for.
        Eventually.until("the dropped table's segments to be free",
                () -> node.flashStat("UsedBytes") <= usedBefore - (4L << 20));
        assertTrue(node.flashStat("MostlyDeadSegmentsDoomed") - doomedBefore >= 4);
        assertTrue(node.flashStat("Checkpoints") > checkpointsBefore);
        TestTables.readAndCheck(session, kept, 0, keptRows, TestTables.versions(keptRows, 1));
        assertEquals(0, node.flashStat("ChecksumErrors"));
    }

    private static void writeVersion(CqlSession session, String table, int rows, int version) {
        int[] ids = java.util.stream.IntStream.range(0, rows).filter(id -> version == 1 || id % 3 == version - 2)
                .toArray();
        TestTables.write(session, table, ids, version);
    }
}

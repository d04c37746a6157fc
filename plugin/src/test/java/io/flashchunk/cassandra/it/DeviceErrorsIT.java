package io.flashchunk.cassandra.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A failing flash device never fails a Cassandra read: the CAPI engine on our capiblock library,
 * told to fail every 4th read and every 7th write with EIO, under reads that must all succeed.
 */
class DeviceErrorsIT {
    /** About 5 MiB of chunks: several 1 MiB segments sealed and written, so hits read the failing device. */
    private static final int ROWS = 2400;

    @Test
    void everyReadSucceedsWhileTheDeviceFails() throws Exception {
        Path library = Path.of(System.getProperty("flashchunk.test.capiLibrary", "../native/build/libcflsh_block.so"))
                .toAbsolutePath();
        try (CassandraNode node = CassandraNode.withFlashCache("device-errors", 128L << 20, "engine: capi",
                "capi_library: " + library + "\ncheckpoint_interval_ms: 3s\nsegment_size_mib: 1", "")) {
            node.environment("FLASHCHUNK_CBLK_FAIL_READ_EVERY", "4")
                    .environment("FLASHCHUNK_CBLK_FAIL_WRITE_EVERY", "7");
            node.start();
            assertTrue(node.systemLog().contains("serving Cassandra's chunk cache"), "the flash cache did not start");
            TestTables.createKeyspace(node.session());
            TestTables.createTable(node.session(), "t", "LZ4Compressor", 16);
            TestTables.write(node.session(), "t", 0, ROWS, 1);
            node.nodetool("flush", TestTables.KEYSPACE);
            for (int pass = 0; pass < 4; pass++) {
                TestTables.readAndCheck(node.session(), "t", 0, ROWS, TestTables.versions(ROWS, 1));
            }
            assertTrue(node.flashStat("ReadErrors") > 0, "no read failed: the faults were not injected");
            assertTrue(node.flashStat("WriteErrors") > 0, "no write failed: the faults were not injected");
            assertTrue(node.flashStat("FlashHits") > 0, "the device served nothing between its faults");
            assertEquals(0, node.flashStat("ChecksumErrors"));
        }
    }
}

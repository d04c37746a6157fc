package io.flashchunk.cassandra.warmup;

import java.util.List;

/**
 * The reads of Cassandra's own tables a driver makes when it connects: its control connection reads
 * the node's own row and its peers' and the schema, including the virtual tables' (the Java driver
 * 4's, which others follow), each a whole-table or range read. The warm-up makes them once, before
 * its point reads, so that the classes they load (range reads, virtual tables) are loaded before
 * the JIT compiles the read path rather than when the first client connects, when a class loaded
 * throws away the compiled code that assumed it absent. Measured (docs/ycsb-benchmark.md,
 * 2026-12-01): with them no class of the clients' is loaded after CQL-ready, but the two batches of
 * the warm-up's C2 code let go in the first 3 s after it stayed, so those have another cause.
 */
final class DriverConnectionReads {
    /** In the order the Java driver 4 reads them on connecting to a 4.0 or later node. */
    static final List<String> QUERIES = List.of(
            "SELECT * FROM system.local",
            "SELECT * FROM system.peers_v2",
            "SELECT * FROM system.peers",
            "SELECT * FROM system_schema.keyspaces",
            "SELECT * FROM system_schema.tables",
            "SELECT * FROM system_schema.columns",
            "SELECT * FROM system_schema.indexes",
            "SELECT * FROM system_schema.views",
            "SELECT * FROM system_schema.types",
            "SELECT * FROM system_schema.functions",
            "SELECT * FROM system_schema.aggregates",
            "SELECT * FROM system_virtual_schema.keyspaces",
            "SELECT * FROM system_virtual_schema.tables",
            "SELECT * FROM system_virtual_schema.columns");

    private DriverConnectionReads() {
    }
}

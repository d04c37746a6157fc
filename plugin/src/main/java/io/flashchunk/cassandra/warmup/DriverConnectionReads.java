package io.flashchunk.cassandra.warmup;

import java.util.List;

/**
 * The reads of Cassandra's own tables a driver makes when it connects: its control connection reads
 * the node's own row and its peers' and the schema, including the virtual tables' (the Java driver
 * 4's, which others follow), each a whole-table or range read. The warm-up makes them once, before
 * its point reads, so that the classes they load (range reads, virtual tables) are loaded before
 * the JIT compiles the read path rather than when the first client connects: each class loaded then
 * throws away the compiled code that assumed it absent (a restart's JIT log: 47 and 63 of the
 * warm-up's C2 methods let go 1.2 and 3.4 s after CQL-ready, as the first clients' connections
 * loaded the range read and virtual table classes, and compiled again 10 to 15 s later;
 * docs/ycsb-benchmark.md).
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

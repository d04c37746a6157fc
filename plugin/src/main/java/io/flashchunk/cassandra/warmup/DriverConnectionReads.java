package io.flashchunk.cassandra.warmup;

import java.util.List;

/**
 * The reads of Cassandra's own tables a driver makes when it connects: its control connection reads
 * the node's own row and its peers' and the schema, including the virtual tables' (the Java driver
 * 4's, which others follow), each a whole-table or range read. The warm-up makes them on each of its
 * connections, so that the read path's compiled code has seen range reads and Cassandra's own tables
 * beside the point reads when clients connect. Measured (docs/ycsb-benchmark.md, 2026-12-01): made
 * once before the point reads, they loaded every class the clients' connections load, but the JIT,
 * which profiles a method only after it has run a while, compiled the read path for point reads
 * alone, and each client's connecting then let go of dozens of its methods (class checks in
 * {@code ReadCommand.executeLocally}, the pager, {@code PartitionRangeReadCommand}).
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

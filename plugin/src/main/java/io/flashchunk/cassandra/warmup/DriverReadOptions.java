package io.flashchunk.cassandra.warmup;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.cassandra.cql3.QueryOptions;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.transport.ProtocolVersion;

/**
 * The options a warm-up read carries over the native protocol: those client drivers send with a
 * bound statement by default, so that the branches the JIT compiles before clients come are those
 * their reads take: code compiled on reads that were never paged, or all at one consistency level,
 * meets clients' reads with those branches not compiled. Measured (docs/ycsb-benchmark.md,
 * 2026-12-01): with unpaged LOCAL_ONE warm-up reads Cassandra's pager was first loaded when clients
 * came; with these it is loaded in the warm-up, and C2 compiled a little less after CQL-ready (a
 * median 346.5 methods in 30 s against 380.5), the ramp unchanged within the rounds' spread. Not
 * sent: a client timestamp (the Java driver's), which a read does not use.
 *
 * <ul>
 *   <li>paged, as drivers page every read by default (5,000 rows a page in the Java, Python and Go
 *       drivers), so reads go through Cassandra's pager as theirs do: pages of
 *       {@value WarmUpTable#ROWS_A_READ} rows of {@link WarmUpTable#pagedPartitionQuery()}, of which
 *       only the first is read;
 *   <li>result metadata skipped (the Java driver's prepared reads);
 *   <li>the consistency level LOCAL_ONE (the Java and Python drivers' default) and ONE in turn
 *       (YCSB's and many applications').
 * </ul>
 */
final class DriverReadOptions {
    /** Rows a page. */
    static final int PAGE_SIZE = WarmUpTable.ROWS_A_READ;

    private DriverReadOptions() {
    }

    /** The consistency level of a reader's {@code n}th read. */
    static ConsistencyLevel consistency(long n) {
        return (n & 1) == 0 ? ConsistencyLevel.LOCAL_ONE : ConsistencyLevel.ONE;
    }

    /** The options of a reader's {@code n}th read of {@code values}, for a connection at {@code version}. */
    static QueryOptions options(long n, List<ByteBuffer> values, ProtocolVersion version) {
        return QueryOptions.create(consistency(n), values, true, PAGE_SIZE, null, ConsistencyLevel.SERIAL, version, null);
    }
}

package io.flashchunk.cassandra.warmup;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.cassandra.cql3.QueryOptions;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.transport.ProtocolVersion;

/**
 * The options a warm-up read carries over the native protocol: those client drivers send with a
 * bound statement by default, so that the code the JIT compiles before clients come is the code
 * their reads run, branch for branch. Reads compiled without paging or at one consistency level
 * leave the other branches as uncommon traps: the first client reads then throw that code away and
 * compile it again (measured: about 130 methods of the warm-up's C2 code discarded in the first
 * seconds after CQL-ready, and the compilers busy for 13 s more).
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

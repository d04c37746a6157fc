package io.flashchunk.cassandra.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.cassandra.cql3.QueryOptions;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.transport.ProtocolVersion;
import org.junit.jupiter.api.Test;

/**
 * A warm-up read carries what a driver's bound read does, so that the JIT compiles the branches
 * clients' reads take. (RestartIT and CassandraVersionsIT read through these options on real 4.1,
 * 5.0 and 6.0 nodes, none failing.)
 */
class DriverReadOptionsTest {
    private static final List<ByteBuffer> KEY = List.of(ByteBuffer.wrap(new byte[] {1}));

    @Test
    void readsArePagedFromTheFirstPageAndSkipTheResultMetadata() {
        QueryOptions options = DriverReadOptions.options(0, KEY, ProtocolVersion.V5);
        assertEquals(WarmUpTable.ROWS_A_READ, options.getPageSize(), "a page of the rows a read is bounded to");
        assertNull(options.getPagingState(), "the first page");
        assertTrue(options.skipMetadata());
        assertEquals(KEY, options.getValues());
        assertEquals(ProtocolVersion.V5, options.getProtocolVersion());
        assertEquals(ConsistencyLevel.SERIAL, options.getSerialConsistency());
    }

    @Test
    void readsTakeLocalOneAndOneInTurn() {
        assertEquals(ConsistencyLevel.LOCAL_ONE, DriverReadOptions.options(0, KEY, ProtocolVersion.V5).getConsistency());
        assertEquals(ConsistencyLevel.ONE, DriverReadOptions.options(1, KEY, ProtocolVersion.V5).getConsistency());
        assertEquals(ConsistencyLevel.LOCAL_ONE, DriverReadOptions.consistency(2));
        assertEquals(ConsistencyLevel.ONE, DriverReadOptions.consistency(Long.MAX_VALUE));
    }
}

package io.flashchunk.cassandra.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.cassandra.db.ConsistencyLevel;
import org.junit.jupiter.api.Test;

/**
 * A warm-up read takes the consistency levels drivers read at by default in turn, so that the JIT
 * compiles the branches of both. (The options themselves are built against a real node's classes:
 * {@code RestartIT} and {@code CassandraVersionsIT} read through them on 4.1, 5.0 and 6.0, none failing.)
 */
class DriverReadOptionsTest {
    @Test
    void readsTakeLocalOneAndOneInTurn() {
        assertEquals(ConsistencyLevel.LOCAL_ONE, DriverReadOptions.consistency(0));
        assertEquals(ConsistencyLevel.ONE, DriverReadOptions.consistency(1));
        assertEquals(ConsistencyLevel.LOCAL_ONE, DriverReadOptions.consistency(2));
        assertEquals(ConsistencyLevel.ONE, DriverReadOptions.consistency(Long.MAX_VALUE));
    }
}

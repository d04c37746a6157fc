package io.flashchunk.cassandra.warmup;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.db.ConsistencyLevel;

/**
 * Point reads through Cassandra's CQL read path from inside the node ({@code QueryProcessor.execute}
 * at LOCAL_ONE): the coordinator's and replica's work a client's read causes, without the native
 * protocol, its connections or the request dispatch. The warm-up's path where the native protocol is
 * not ({@link PointReadsChoice}).
 */
final class InternalPointReads implements PointReads {
    @Override
    public String path() {
        return "through Cassandra's internal CQL read path";
    }

    /** A read here keeps a core busy from start to end: one thread a core. */
    @Override
    public int threads(int cores) {
        return cores;
    }

    @Override
    public Reader reader() {
        return new Reader() {
            @Override
            public void read(WarmUpTable table, List<ByteBuffer> key) {
                QueryProcessor.execute(table.partitionQuery(), ConsistencyLevel.LOCAL_ONE, key.toArray());
            }

            @Override
            public void query(String cql) {
                QueryProcessor.execute(cql, ConsistencyLevel.ONE);
            }

            /** The internal path has no connection. */
            @Override
            public void startOver() {
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public void close() {
    }
}

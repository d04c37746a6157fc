package io.flashchunk.cassandra.warmup;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * How the warm-up sends a client's point read to the node: each warm-up thread reads through a
 * {@link Reader} of its own, opened here and closed by that thread.
 */
public interface PointReads extends AutoCloseable {
    /** How the reads reach the node, for the warm-up's log lines. */
    String path();

    /** How many threads read at once on a node of {@code cores} cores. */
    int threads(int cores);

    /** A reader for one thread; the caller closes it. */
    Reader reader() throws Exception;

    /** Releases what reading needed, once every reader is closed. Never throws. */
    @Override
    void close();

    /** One thread's point reads. */
    interface Reader extends AutoCloseable {
        /** Reads the first rows of the partition of {@code key} (each key column's bytes), as a client's point read. */
        void read(WarmUpTable table, List<ByteBuffer> key) throws Exception;

        /** Runs {@code cql}, a read of one of Cassandra's own tables ({@link DriverConnectionReads}), as a client would. */
        void query(String cql) throws Exception;

        /**
         * Ends this reader's connection to the node, where it has one, so that its next request opens
         * another, and prepares its statement again, as a client that connects does. Never throws.
         */
        void startOver();

        /** Never throws. */
        @Override
        void close();
    }
}

package io.flashchunk.testing;

import io.flashchunk.cassandra.warmup.PointReads;
import io.flashchunk.cassandra.warmup.WarmUpTable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A warm-up reader that records its requests instead of sending them: "query CQL", "read N" (the
 * key's first column, an int) and "start over"; its reads and queries fail while told to.
 */
public final class RecordingReader implements PointReads.Reader {
    private final List<String> requests = new ArrayList<>();
    private int reads;
    private int readAttempts;
    private boolean failing;
    private boolean closed;

    @Override
    public void read(WarmUpTable table, List<ByteBuffer> key) {
        readAttempts++;
        if (failing) {
            throw new IllegalStateException("read " + key.get(0).getInt(0) + " failed, as told");
        }
        reads++;
        requests.add("read " + key.get(0).getInt(0));
    }

    @Override
    public void query(String cql) {
        if (failing) {
            throw new IllegalStateException("query failed, as told");
        }
        requests.add("query " + cql);
    }

    @Override
    public void startOver() {
        requests.add("start over");
    }

    @Override
    public void close() {
        closed = true;
    }

    /** Makes every read and query from now on fail (or not). */
    public void failing(boolean fail) {
        failing = fail;
    }

    /** The requests that succeeded and the start-overs, in order. */
    public List<String> requests() {
        return requests;
    }

    public int reads() {
        return reads;
    }

    /** Reads asked for, failed ones too. */
    public int readAttempts() {
        return readAttempts;
    }

    public boolean closed() {
        return closed;
    }
}

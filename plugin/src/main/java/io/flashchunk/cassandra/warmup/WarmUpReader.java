package io.flashchunk.cassandra.warmup;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * One warm-up thread's requests, in the order a client makes them. It connects as a driver does,
 * reading Cassandra's own tables first ({@link DriverConnectionReads}), then makes point reads, and
 * connects again every {@value #READS_A_CONNECTION} of them (failed ones too). Until {@code findUntil}
 * it reads keys it finds, up to {@value #KEYS_A_READER}; then mostly those again, at random, and a
 * key found anew (in place of one of them) once in {@value #NEW_KEY_EVERY} reads, so that chunks are
 * still read for the first time, as clients' reads do.
 *
 * <p>Why clients connect again and again here: the JIT compiles out of a method what it did not see
 * run while profiling it, and throws the compiled method away when that runs later (an uncommon
 * trap). A driver's connection made once, at the start, is over before the read path is profiled, and
 * the clients' first connections after the warm-up then let go of hundreds of its compiled methods
 * (docs/ycsb-benchmark.md, 2026-12-01).
 */
final class WarmUpReader {
    /** Keys a reader finds before it reads only those: enough to spread its reads over the node's data. */
    static final int KEYS_A_READER = 2048;
    /**
     * Point reads a reader makes on a connection before it connects again, as a client: often enough that
     * a method of the read path sees clients connect several times while the JIT profiles it (C2
     * compiles after about 10,000 calls), rarely enough that their reads of Cassandra's own tables stay
     * a few percent of the warm-up's requests.
     */
    static final int READS_A_CONNECTION = 1000;
    /** After {@code findUntil}, one point read in this many is of a key found anew. */
    static final int NEW_KEY_EVERY = 16;

    /** A partition key to read, and its table. */
    static final class Key {
        final WarmUpTable table;
        final List<ByteBuffer> columns;

        Key(WarmUpTable table, List<ByteBuffer> columns) {
            this.table = table;
            this.columns = columns;
        }
    }

    /** Finds a key to read. */
    interface KeyFinder {
        /** A key to read, or null when none was found this time (counted by the finder if need be). */
        Key find() throws Exception;
    }

    private final PointReads.Reader reader;
    private final KeyFinder keys;
    private final WarmUpCounts counts;
    private final LongSupplier nanoClock;
    private final long findUntil;
    private final Random random;
    private final List<Key> sample = new ArrayList<>();

    /**
     * @param reader    the thread's reader (closed by the caller)
     * @param keys      where keys to read come from
     * @param counts    what is counted, across the warm-up's threads
     * @param nanoClock {@code System.nanoTime}, or a test's
     * @param findUntil the time on {@code nanoClock} until which keys are found rather than read again
     * @param random    the thread's random numbers
     */
    WarmUpReader(PointReads.Reader reader, KeyFinder keys, WarmUpCounts counts, LongSupplier nanoClock, long findUntil,
                 Random random) {
        this.reader = reader;
        this.keys = keys;
        this.counts = counts;
        this.nanoClock = nanoClock;
        this.findUntil = findUntil;
        this.random = random;
    }

    /** Reads until {@code over} says so, checked before each request. */
    void run(BooleanSupplier over) {
        readAsADriverConnecting(over);
        int onThisConnection = 0;
        while (!over.getAsBoolean()) {
            if (onThisConnection == READS_A_CONNECTION) {
                reader.startOver();
                readAsADriverConnecting(over);
                onThisConnection = 0;
                continue;
            }
            counts.counted(this::readOne);
            onThisConnection++;
        }
    }

    /** {@link DriverConnectionReads}, as a driver connecting; each that fails is counted with the point reads' failures. */
    private void readAsADriverConnecting(BooleanSupplier over) {
        counts.connections.increment();
        for (String cql : DriverConnectionReads.QUERIES) {
            if (over.getAsBoolean()) {
                return;
            }
            counts.counted(() -> {
                reader.query(cql);
                counts.ownTableReads.increment();
            });
        }
    }

    /** A key found or taken from the sample, and read. */
    private void readOne() throws Exception {
        boolean finding = nanoClock.getAsLong() - findUntil < 0 ? sample.size() < KEYS_A_READER
                : random.nextInt(NEW_KEY_EVERY) == 0;
        Key key;
        if (finding || sample.isEmpty()) {
            key = keys.find();
            if (key == null) {
                return;
            }
            if (sample.size() < KEYS_A_READER) {
                sample.add(key);
            } else {
                sample.set(random.nextInt(sample.size()), key);
            }
            counts.keysFound.increment();
        } else {
            key = sample.get(random.nextInt(sample.size()));
        }
        reader.read(key.table, key.columns);
        counts.reads.increment();
    }
}

package io.flashchunk.cassandra.warmup;

import io.flashchunk.cassandra.CassandraFlashCache;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.UntypedResultSet;
import org.apache.cassandra.dht.IPartitioner;
import org.apache.cassandra.schema.SchemaConstants;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.FBUtilities;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code warm_up_before_clients}: before a node starts its client transports, reads its own tables
 * through Cassandra's CQL read path for the time set, from several threads at once, so that the JIT
 * compiles that path while no client waits on it. After a restart a node otherwise serves at a
 * third of its warm rate for a minute or more with the flash cache already hitting 99% of reads,
 * because its code is not yet compiled (docs/ycsb-benchmark.md, "What a restart's ramp is made of").
 *
 * <p>For the first quarter of the time each thread finds keys, the partition at or after a random
 * token with a local read, and when this node is one of its replicas reads that partition's first
 * rows as a client's point read does (through the native protocol, with the options of
 * {@link DriverReadOptions}; the coordinator reads its own replica first, as Cassandra's snitches
 * order replicas); then it reads the keys it found again, at random, with no range read between.
 * The first thread first reads Cassandra's own tables once, as a driver does on connecting
 * ({@link DriverConnectionReads}). Tables with no partition here are left out. The point reads go through the native
 * protocol, as a client's do ({@link NativeProtocolPointReads}), where {@link PointReadsChoice} finds
 * that as safe as the node's own listener and working; else through Cassandra's internal CQL path
 * ({@link InternalPointReads}), which leaves the protocol's part of the path cold. Whatever fails is counted and logged,
 * never thrown: the node starts its clients once the time is up whatever happened; a drain or
 * shutdown ends it sooner. It runs once per JVM: {@code CassandraDaemon.start()} is called again
 * when a node leaves write-survey mode or resumes a bootstrap, under StorageService's lock.
 */
public final class ReadPathWarmUp {
    private static final Logger LOG = LoggerFactory.getLogger(ReadPathWarmUp.class);
    /** A warm-up whose reads keep failing stops early: past this many failures, and more than it read. */
    static final long FAILURES_BEFORE_GIVING_UP = 100;
    /** Keys a reader finds before it reads only those: enough to spread its reads over the node's data. */
    static final int KEYS_A_READER = 2048;

    private static volatile long configuredMillis;
    private static final AtomicBoolean RAN = new AtomicBoolean();

    private final List<WarmUpTable> tables;
    private final long startNanos;
    private final long deadlineNanos;
    private final LongAdder reads = new LongAdder();
    private final LongAdder sampled = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final LongAdder notLocal = new LongAdder();
    private final AtomicReference<Throwable> lastFailure = new AtomicReference<>();
    private volatile boolean stopped;

    private ReadPathWarmUp(List<WarmUpTable> tables, long startNanos, long deadlineNanos) {
        this.tables = tables;
        this.startNanos = startNanos;
        this.deadlineNanos = deadlineNanos;
    }

    /** Sets the warm-up's length, from the configuration loader once the flash cache has started. */
    public static void configure(long millis) {
        configuredMillis = millis;
    }

    /** The warm-up's length as configured; 0 when none is set or the daemon cannot run it. */
    public static long configuredMillis() {
        return configuredMillis;
    }

    /**
     * The agent's advice calls this as {@code CassandraDaemon} starts its client transports: runs the
     * warm-up when one is set and the flash cache runs, and returns when it is over. Never throws.
     *
     * @param daemon the {@code CassandraDaemon}, whose client transport the native-protocol reads set up
     */
    public static void beforeClientTransports(Object daemon) {
        long millis = configuredMillis;
        if (millis <= 0 || CassandraFlashCache.active() == null || !RAN.compareAndSet(false, true)) {
            return;
        }
        if (!startsNativeTransport()) {
            LOG.info("flash chunk cache: no warm-up before clients: the node does not start its native transport "
                    + "(start_native_transport, or -Dcassandra.start_native_transport)");
            return;
        }
        try {
            List<WarmUpTable> tables = userTables();
            if (tables.isEmpty()) {
                LOG.info("flash chunk cache: no table to warm the read path up with (warm_up_before_clients)");
                return;
            }
            try (PointReads pointReads = PointReadsChoice.choose(daemon, tables)) {
                LOG.info("flash chunk cache: warming the read path up for {} ms before clients, reading {} table(s) {}",
                        millis, tables.size(), pointReads.path());
                long start = System.nanoTime();
                ReadPathWarmUp warmUp = new ReadPathWarmUp(tables, start, start + millis * 1_000_000L);
                warmUp.run(pointReads, pointReads.threads(Math.max(1, FBUtilities.getAvailableProcessors())));
                LOG.info("flash chunk cache: read path warmed up in {} ms: {}; read {}", (System.nanoTime() - start) / 1_000_000,
                        warmUp.summary(), pointReads.path());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("flash chunk cache: the warm-up before clients was interrupted");
        } catch (Throwable t) {
            LOG.warn("flash chunk cache: the warm-up before clients stopped: {}", t.toString());
        }
    }

    /** Cassandra's own rule in {@code startClientTransports()}: the system property first, else the setting. */
    private static boolean startsNativeTransport() {
        String property = System.getProperty("cassandra.start_native_transport");
        return property != null ? Boolean.parseBoolean(property) : DatabaseDescriptor.startNativeTransport();
    }

    /**
     * Tables of the keyspaces not Cassandra's own, views left out, that hold a partition on this
     * node (a local read of the first one).
     */
    static List<WarmUpTable> userTables() {
        Set<String> tables = new HashSet<>();
        for (UntypedResultSet.Row row : QueryProcessor.executeInternal(
                "SELECT keyspace_name, table_name FROM system_schema.tables")) {
            tables.add(row.getString("keyspace_name") + "\u0000" + row.getString("table_name"));
        }
        Map<String, TreeMap<Integer, String>> keys = new LinkedHashMap<>();
        for (UntypedResultSet.Row row : QueryProcessor.executeInternal(
                "SELECT keyspace_name, table_name, column_name, kind, position FROM system_schema.columns")) {
            String keyspace = row.getString("keyspace_name");
            String table = keyspace + "\u0000" + row.getString("table_name");
            if (!SchemaConstants.isSystemKeyspace(keyspace) && tables.contains(table)
                    && "partition_key".equals(row.getString("kind"))) {
                keys.computeIfAbsent(table, t -> new TreeMap<>()).put(row.getInt("position"), row.getString("column_name"));
            }
        }
        List<WarmUpTable> result = new ArrayList<>();
        keys.forEach((table, columns) -> {
            String[] names = table.split("\u0000", 2);
            WarmUpTable warmUpTable = new WarmUpTable(names[0], names[1], new ArrayList<>(columns.values()));
            if (!QueryProcessor.executeInternal(warmUpTable.firstKeyQuery()).isEmpty()) {
                result.add(warmUpTable);
            }
        });
        return result;
    }

    private void run(PointReads pointReads, int threads) throws InterruptedException {
        List<Thread> readers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            boolean first = i == 0;
            Thread reader = new Thread(() -> readUntilDeadline(pointReads, first), "flashchunk-warm-up-" + i);
            reader.setDaemon(true);
            reader.start();
            readers.add(reader);
        }
        try {
            for (Thread reader : readers) {
                // A point read in flight at the deadline ends within Cassandra's read timeout (through the native
                // protocol, SimpleClient's 10 s); the node waits for the read timeout at most, then closes the
                // warm-up's listener (5.0 and 6.0 wait up to native_transport_timeout for requests in flight)
                // and lets its clients in; a reader still reading stops after its read.
                long leftMillis = Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000
                        + DatabaseDescriptor.getReadRpcTimeout(TimeUnit.MILLISECONDS));
                reader.join(leftMillis);
            }
        } finally {
            stopped = true; // also when interrupted: no reader goes on past the warm-up
        }
    }

    /** One reader's reads; the first reader makes a driver's connection reads before its point reads. */
    private void readUntilDeadline(PointReads pointReads, boolean connectsFirst) {
        PointReads.Reader reader;
        try {
            reader = pointReads.reader();
        } catch (Throwable t) {
            failures.increment();
            lastFailure.set(t);
            return;
        }
        try {
            if (connectsFirst) {
                readAsADriverConnecting(reader);
            }
            readUntilDeadline(reader);
        } finally {
            reader.close();
        }
    }

    /** {@link DriverConnectionReads}, once; each that fails is counted with the point reads' failures. */
    private void readAsADriverConnecting(PointReads.Reader reader) {
        for (String cql : DriverConnectionReads.QUERIES) {
            if (stopped || System.nanoTime() - deadlineNanos >= 0 || nodeStopping()) {
                return;
            }
            counted(() -> reader.query(cql));
        }
    }

    /**
     * Finds keys and reads them for the first quarter of the time (or until it has
     * {@value #KEYS_A_READER}), then reads those keys again at random: from then on every read is a
     * client's point read, the path the JIT should have compiled when clients come, with no range read
     * beside it to find the next key.
     */
    private void readUntilDeadline(PointReads.Reader reader) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        List<SampledKey> sample = new ArrayList<>();
        long findUntil = startNanos + (deadlineNanos - startNanos) / 4;
        while (!stopped && System.nanoTime() - deadlineNanos < 0 && !givenUp() && !nodeStopping()) {
            counted(() -> readOne(reader, sample, random, findUntil));
        }
    }

    /** A key found (until {@code findUntil}, while the sample has room) or taken from the sample, and read. */
    private void readOne(PointReads.Reader reader, List<SampledKey> sample, ThreadLocalRandom random, long findUntil)
            throws Exception {
        SampledKey key;
        if ((sample.size() < KEYS_A_READER && System.nanoTime() - findUntil < 0) || sample.isEmpty()) {
            key = findKey(tables.get(random.nextInt(tables.size())));
            if (key == null) {
                return;
            }
            sample.add(key);
            sampled.increment();
        } else {
            key = sample.get(random.nextInt(sample.size()));
        }
        reader.read(key.table, key.columns);
        reads.increment();
    }

    /** What a reader does that may fail. */
    private interface Attempt {
        void run() throws Exception;
    }

    /** Runs {@code attempt}; a failure is counted and remembered, and a VirtualMachineError ends the reader too. */
    private void counted(Attempt attempt) {
        try {
            attempt.run();
        } catch (VirtualMachineError e) {
            lastFailure.set(e);
            failures.increment();
            throw e;
        } catch (Throwable t) {
            failures.increment();
            lastFailure.set(t);
        }
    }

    /**
     * The key of the partition at or after a random token (a local read), if this node is one of its
     * replicas; null when it is not, or the table holds no partition any more.
     */
    private SampledKey findKey(WarmUpTable table) {
        List<ByteBuffer> key = table.keyAtOrAfter(randomToken());
        if (key == null) {
            return null; // emptied since the warm-up began
        }
        if (!table.replicatedHere(key)) {
            notLocal.increment(); // data this node no longer owns: another node would serve the read
            return null;
        }
        return new SampledKey(table, key);
    }

    /** A random token of the node's partitioner, as its bytes. */
    static ByteBuffer randomToken() {
        IPartitioner partitioner = DatabaseDescriptor.getPartitioner();
        return partitioner.getTokenFactory().toByteArray(partitioner.getRandomToken());
    }

    /** A partition key a reader found, and its table. */
    private static final class SampledKey {
        final WarmUpTable table;
        final List<ByteBuffer> columns;

        SampledKey(WarmUpTable table, List<ByteBuffer> columns) {
            this.table = table;
            this.columns = columns;
        }
    }

    private static boolean nodeStopping() {
        StorageService service = StorageService.instance;
        return service.isDraining() || service.isDrained() || service.isShutdown();
    }

    private boolean givenUp() {
        long failed = failures.sum();
        return failed > FAILURES_BEFORE_GIVING_UP && failed > reads.sum();
    }

    private String summary() {
        Throwable failure = lastFailure.get();
        return reads.sum() + " partition reads of " + sampled.sum() + " keys, " + notLocal.sum() + " keys another node owns skipped, "
                + failures.sum() + " failed" + (failure == null ? "" : " (the last: " + failure + ")")
                + (givenUp() ? "; stopped early" : nodeStopping() ? "; stopped by a drain or shutdown" : "");
    }
}

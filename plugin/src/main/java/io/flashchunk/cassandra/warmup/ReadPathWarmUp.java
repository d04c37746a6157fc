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
 * <p>Each thread reads as a client does, connecting again and again ({@link WarmUpReader}): it
 * finds keys for the first quarter of the time, the partition at or after a random token with a
 * local read, and when this node is one of its replicas reads that partition's first rows as a
 * client's point read does (with the options of {@link DriverReadOptions}; the coordinator reads its
 * own replica first, as Cassandra's snitches order replicas); then it mostly reads the keys it found
 * again. Tables with no partition here are left out. The point reads go through the native
 * protocol, as a client's do ({@link NativeProtocolPointReads}), where {@link PointReadsChoice} finds
 * that as safe as the node's own listener and working; else through Cassandra's internal CQL path
 * ({@link InternalPointReads}), which leaves the protocol's part of the path cold. Whatever fails is counted and logged,
 * never thrown: the node starts its clients once the time is up whatever happened; a drain or
 * shutdown ends it sooner. It runs once per JVM: {@code CassandraDaemon.start()} is called again
 * when a node leaves write-survey mode or resumes a bootstrap, under StorageService's lock.
 */
public final class ReadPathWarmUp {
    private static final Logger LOG = LoggerFactory.getLogger(ReadPathWarmUp.class);
    private static volatile long configuredMillis;
    private static final AtomicBoolean RAN = new AtomicBoolean();

    private final List<WarmUpTable> tables;
    private final long startNanos;
    private final long deadlineNanos;
    private final WarmUpCounts counts = new WarmUpCounts();
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
            Thread reader = new Thread(() -> readUntilDeadline(pointReads), "flashchunk-warm-up-" + i);
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

    /** One reader's reads, until the deadline; keys are found for the first quarter of the time. */
    private void readUntilDeadline(PointReads pointReads) {
        PointReads.Reader reader;
        try {
            reader = pointReads.reader();
        } catch (Throwable t) {
            counts.failed(t);
            return;
        }
        try {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            new WarmUpReader(reader, () -> findKey(tables.get(random.nextInt(tables.size()))), counts, System::nanoTime,
                    startNanos + (deadlineNanos - startNanos) / 4, random).run(this::over);
        } finally {
            reader.close();
        }
    }

    private boolean over() {
        return stopped || System.nanoTime() - deadlineNanos >= 0 || counts.givenUp() || nodeStopping();
    }

    /**
     * The key of the partition at or after a random token (a local read), if this node is one of its
     * replicas; null when it is not, or the table holds no partition any more.
     */
    private WarmUpReader.Key findKey(WarmUpTable table) {
        List<ByteBuffer> key = table.keyAtOrAfter(randomToken());
        if (key == null) {
            return null; // emptied since the warm-up began
        }
        if (!table.replicatedHere(key)) {
            counts.notLocal.increment(); // data this node no longer owns: another node would serve the read
            return null;
        }
        return new WarmUpReader.Key(table, key);
    }

    /** A random token of the node's partitioner, as its bytes. */
    static ByteBuffer randomToken() {
        IPartitioner partitioner = DatabaseDescriptor.getPartitioner();
        return partitioner.getTokenFactory().toByteArray(partitioner.getRandomToken());
    }

    private static boolean nodeStopping() {
        StorageService service = StorageService.instance;
        return service.isDraining() || service.isDrained() || service.isShutdown();
    }

    private String summary() {
        return counts.summary() + (counts.givenUp() ? "; stopped early" : nodeStopping() ? "; stopped by a drain or shutdown" : "");
    }
}

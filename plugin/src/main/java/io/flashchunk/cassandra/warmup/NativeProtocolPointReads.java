package io.flashchunk.cassandra.warmup;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.exceptions.TransportException;
import org.apache.cassandra.service.CassandraDaemon;
import org.apache.cassandra.transport.Message;
import org.apache.cassandra.transport.ProtocolVersion;
import org.apache.cassandra.transport.SimpleClient;
import org.apache.cassandra.transport.messages.ExecuteMessage;
import org.apache.cassandra.transport.messages.QueryMessage;
import org.apache.cassandra.transport.messages.ResultMessage;

/**
 * Point reads sent as a client sends them: prepared statements executed over the native protocol,
 * through a {@link LoopbackNativeServer}, by Cassandra's own {@code SimpleClient}, one connection a
 * thread, with the options drivers send ({@link DriverReadOptions}). So the JIT compiles, before
 * clients come, the parts of a client's read the internal path leaves cold: the protocol's frames and
 * codecs, Netty's pipeline, the request dispatch, the pager and the native-transport request threads.
 */
final class NativeProtocolPointReads implements PointReads {
    /**
     * A thread waits for each answer over the loopback connection; four a core keep a small node's
     * request threads as busy as a loaded client does.
     */
    static final int THREADS_A_CORE = 4;
    /**
     * At most this many connections: each SimpleClient opens a Netty selector for every event loop
     * its group may run (twice the cores), so connections a core would grow file descriptors with the
     * square of the cores; eight compile the path as well on a large node, only more slowly.
     */
    static final int MAX_CONNECTIONS = 8;

    private final LoopbackNativeServer server;

    private NativeProtocolPointReads(LoopbackNativeServer server) {
        this.server = server;
    }

    /**
     * Sets up the node's client transport as Cassandra would on starting it (its listeners built, not
     * opened; its client metrics, which every request marks, registered), then opens the loopback
     * listener.
     *
     * @param daemon the {@code CassandraDaemon} starting its client transports
     * @throws Exception when either fails: the warm-up then reads through the internal path
     */
    static NativeProtocolPointReads start(Object daemon) throws Exception {
        initializeClientTransport(daemon);
        return new NativeProtocolPointReads(LoopbackNativeServer.start());
    }

    /**
     * {@code NativeTransportService.initialize()}, package-private and idempotent in 4.1, 5.0 and 6.0,
     * which {@code start()} calls first when the daemon starts its clients a moment later.
     */
    static void initializeClientTransport(Object daemon) throws ReflectiveOperationException {
        Field field = CassandraDaemon.class.getDeclaredField("nativeTransportService");
        field.setAccessible(true);
        Object service = field.get(daemon);
        if (service == null) {
            throw new IllegalStateException("the daemon has no native transport service yet");
        }
        Method initialize = service.getClass().getDeclaredMethod("initialize");
        initialize.setAccessible(true);
        initialize.invoke(service);
    }

    @Override
    public String path() {
        InetSocketAddress address = server.address();
        return "through the native protocol (a listener of its own on " + address.getAddress().getHostAddress() + ":"
                + address.getPort() + ", closed before clients come)";
    }

    /** Also under the node's limits of connections (all, and from one address), which this listener shares. */
    @Override
    public int threads(int cores) {
        long threads = Math.min((long) THREADS_A_CORE * cores, MAX_CONNECTIONS);
        for (long limit : new long[] {DatabaseDescriptor.getNativeTransportMaxConcurrentConnections(),
                DatabaseDescriptor.getNativeTransportMaxConcurrentConnectionsPerIp()}) {
            if (limit > 0) {
                threads = Math.min(threads, limit);
            }
        }
        return (int) Math.max(1, threads);
    }

    @Override
    public Reader reader() {
        return new ClientReader(server.address());
    }

    @Override
    public void close() {
        server.close();
    }

    /**
     * The protocol version the readers speak: {@code SimpleClient}'s default, named because their
     * options are built for it; V5 in 4.1, 5.0 and 6.0, the newest that is not a beta, which drivers
     * negotiate.
     */
    private static final ProtocolVersion VERSION = ProtocolVersion.CURRENT;

    private static SimpleClient connect(InetSocketAddress address) throws Exception {
        SimpleClient client = SimpleClient.builder(address.getAddress().getHostAddress(), address.getPort())
                .protocolVersion(VERSION).build();
        try {
            client.connect(false);
            return client;
        } catch (Exception | Error e) {
            closeQuietly(client, e);
            throw e;
        }
    }

    private static void closeQuietly(SimpleClient client, Throwable cause) {
        try {
            client.close(); // what of the connection was made
        } catch (RuntimeException | Error closing) {
            if (cause != null) {
                cause.addSuppressed(closing);
            }
        }
    }

    /** A request made on the reader's connection (which may prepare a statement first). */
    private interface RequestSource {
        Message.Request make();
    }

    /**
     * One thread's connection, made at its first read, and the statements it prepared. A read that
     * fails but for the server's own answer (an error it sent, in order) drops the connection, closed
     * on a thread of its own (a late answer would otherwise be taken for the next request's, and can
     * block the connection's event loop, and so its close, for good); the next read connects again.
     */
    private static final class ClientReader implements Reader {
        private final InetSocketAddress address;
        private final Map<WarmUpTable, ResultMessage.Prepared> prepared = new IdentityHashMap<>();
        private SimpleClient client;
        private long reads;

        private ClientReader(InetSocketAddress address) {
            this.address = address;
        }

        @Override
        public void read(WarmUpTable table, List<ByteBuffer> key) throws Exception {
            send(() -> {
                ResultMessage.Prepared statement = prepared.get(table);
                if (statement == null) {
                    statement = client.prepare(table.pagedPartitionQuery());
                    prepared.put(table, statement);
                }
                return new ExecuteMessage(statement.statementId, statement.resultMetadataId,
                        DriverReadOptions.options(reads++, key, VERSION));
            });
        }

        @Override
        public void query(String cql) throws Exception {
            send(() -> new QueryMessage(cql, DriverReadOptions.options(reads++, List.of(), VERSION)));
        }

        /** Sends the request {@code request} makes (connected first if need be) and expects rows. */
        private void send(RequestSource request) throws Exception {
            if (client == null) {
                client = connect(address);
            }
            try {
                Message.Response result = client.execute(request.make());
                if (!(result instanceof ResultMessage.Rows)) {
                    throw new IllegalStateException("a read answered " + result);
                }
            } catch (RuntimeException e) {
                if (!(e.getCause() instanceof TransportException)) {
                    drop();
                }
                throw e;
            } catch (Error e) {
                drop();
                throw e;
            }
        }

        private void drop() {
            SimpleClient dropped = client;
            client = null;
            prepared.clear();
            Thread closer = new Thread(() -> closeQuietly(dropped, null), "flashchunk-warm-up-close");
            closer.setDaemon(true);
            closer.start();
        }

        @Override
        public void startOver() {
            close();
        }

        @Override
        public void close() {
            if (client != null) {
                closeQuietly(client, null);
                client = null;
                prepared.clear();
            }
        }
    }
}

package io.flashchunk.cassandra.warmup;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.transport.SimpleClient;
import org.apache.cassandra.transport.messages.ResultMessage;

/**
 * Point reads sent as a client sends them: prepared statements executed over the native protocol,
 * through a {@link LoopbackNativeServer}, by Cassandra's own {@code SimpleClient}, one connection a
 * thread. So the JIT compiles, before clients come, the parts of a client's read the internal path
 * leaves cold: the protocol's frames and codecs, Netty's pipeline, the request dispatch and the
 * native-transport request threads.
 */
final class NativeProtocolPointReads implements PointReads {
    /**
     * A thread waits for each answer over the loopback connection; four a core keep the node's
     * request threads as busy as a loaded client does.
     */
    static final int THREADS_A_CORE = 4;

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
        Field field = daemon.getClass().getDeclaredField("nativeTransportService");
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

    @Override
    public int threads(int cores) {
        return THREADS_A_CORE * cores;
    }

    @Override
    public Reader reader() throws Exception {
        InetSocketAddress address = server.address();
        SimpleClient client = SimpleClient.builder(address.getAddress().getHostAddress(), address.getPort()).build();
        try {
            client.connect(false);
        } catch (Exception | Error e) {
            try {
                client.close(); // what of the connection was made
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return new Reader() {
            private final Map<WarmUpTable, ResultMessage.Prepared> prepared = new IdentityHashMap<>();

            @Override
            public void read(WarmUpTable table, List<ByteBuffer> key) {
                ResultMessage.Prepared statement = prepared.computeIfAbsent(table, t -> client.prepare(t.partitionQuery()));
                ResultMessage result = client.executePrepared(statement, key, ConsistencyLevel.LOCAL_ONE);
                if (!(result instanceof ResultMessage.Rows)) {
                    throw new IllegalStateException("a read answered " + result);
                }
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    @Override
    public void close() {
        server.close();
    }
}

package io.flashchunk.cassandra.warmup;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.transport.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A native-protocol listener of Cassandra's own ({@code org.apache.cassandra.transport.Server}) on the
 * loopback address and a free port, for the warm-up's reads alone: its requests go through the same
 * pipeline, dispatch and request threads as a client's, while the node's own listeners are not yet
 * open. Closing it closes its connections, tells its event loop threads to end (they do after Netty's
 * quiet period, about 2 s) and unregisters it from the node's topology and schema events. Cassandra's lines of a
 * listener starting and stopping are held back for it ({@link ListenerLogLines}): the node's log
 * says "Starting listening for CQL clients" once a start, for the node's own listener.
 */
final class LoopbackNativeServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LoopbackNativeServer.class);
    /** A free port found can be taken by another process before the bind: tries as many. */
    private static final int ATTEMPTS = 3;

    private final Server server;
    private final Server.EventNotifier notifier;
    private final InetSocketAddress address;

    private LoopbackNativeServer(Server server, Server.EventNotifier notifier, InetSocketAddress address) {
        this.server = server;
        this.notifier = notifier;
        this.address = address;
    }

    /**
     * Opens the listener. The node's client metrics must be set up first (Cassandra does it as it
     * builds its own listeners): a request dispatched before that fails.
     *
     * @throws IOException when no port could be bound
     */
    static LoopbackNativeServer start() throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        IllegalStateException last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int port = freePort(loopback);
            Server.EventNotifier notifier = new Server.EventNotifier();
            Server server = null;
            try {
                server = new Server.Builder().withHost(loopback).withPort(port).withEventNotifier(notifier).build();
                ListenerLogLines.heldBack(server::start);
                return new LoopbackNativeServer(server, notifier, new InetSocketAddress(loopback, port));
            } catch (RuntimeException | Error e) {
                release(server, notifier);
                if (!(e instanceof IllegalStateException) || !String.valueOf(e.getMessage()).startsWith("Failed to bind")) {
                    throw e;
                }
                last = (IllegalStateException) e; // the port was taken since it was found free: another
            }
        }
        throw new IOException("no loopback port could be bound in " + ATTEMPTS + " attempts", last);
    }

    InetSocketAddress address() {
        return address;
    }

    @Override
    public void close() {
        try {
            ListenerLogLines.heldBack(server::stop);
        } catch (RuntimeException e) {
            LOG.info("flash chunk cache: the warm-up's loopback listener did not stop cleanly: {}", e.toString());
        } finally {
            release(server, notifier);
        }
    }

    private static int freePort(InetAddress address) throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, address)) {
            return socket.getLocalPort();
        }
    }

    /**
     * What a Server leaves behind when stopped: the event loop group it made for itself (its
     * {@code workerGroup}; Cassandra's own listeners share one the node closes), and its event
     * notifier's registrations. Reflection, as Cassandra has no API for either and Schema's
     * {@code instance} changed type in 6.0; a failure leaves idle threads or an idle listener, logged.
     */
    private static void release(Server server, Server.EventNotifier notifier) {
        // A Server whose build failed is out of reach, with whatever group its constructor had made.
        if (server != null) {
            try {
                Field group = Server.class.getDeclaredField("workerGroup");
                group.setAccessible(true);
                Object workerGroup = group.get(server);
                workerGroup.getClass().getMethod("shutdownGracefully").invoke(workerGroup);
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.info("flash chunk cache: the warm-up's loopback listener left its event loop threads: {}", e.toString());
            }
        }
        try {
            StorageService.instance.unregister(notifier);
            Object schema = Class.forName("org.apache.cassandra.schema.Schema").getField("instance").get(null);
            Method unregister = null;
            for (Method method : schema.getClass().getMethods()) {
                if (method.getName().equals("unregisterListener") && method.getParameterCount() == 1
                        && method.getParameterTypes()[0].isInstance(notifier)) {
                    unregister = method;
                }
            }
            if (unregister == null) {
                throw new NoSuchMethodException(schema.getClass().getName() + ".unregisterListener");
            }
            unregister.invoke(schema, notifier);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.info("flash chunk cache: the warm-up's loopback listener stays registered for schema events: {}",
                    e.toString());
        }
    }

    @Override
    public String toString() {
        return "LoopbackNativeServer[" + address + "]";
    }
}

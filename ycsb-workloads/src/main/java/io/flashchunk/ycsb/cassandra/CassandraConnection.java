package io.flashchunk.ycsb.cassandra;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.loadbalancing.NodeDistance;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Set;

/** A driver session on the configured keyspace, with the statements prepared on it. */
final class CassandraConnection implements AutoCloseable {
    private final CassandraSettings settings;
    private final CqlSession session;
    private final PreparedStatements statements;

    private CassandraConnection(CassandraSettings settings, CqlSession session) {
        this.settings = settings;
        this.session = session;
        this.statements = new PreparedStatements(session);
    }

    /** Connects; fails if no host answers or the keyspace does not exist. */
    static CassandraConnection open(CassandraSettings settings) {
        DriverConfigLoader config = DriverConfigLoader.programmaticBuilder()
                .withDuration(DefaultDriverOption.CONNECTION_CONNECT_TIMEOUT, settings.connectTimeout())
                .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, settings.connectTimeout())
                .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, settings.requestTimeout())
                // Preparing is a request too; a busy node should not fail it sooner than a read.
                .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, settings.requestTimeout())
                // Crash soaks restart the node every few seconds; the client must find it again as fast.
                .withDuration(DefaultDriverOption.RECONNECTION_BASE_DELAY,
                        min(Duration.ofSeconds(1), settings.reconnectMaxDelay()))
                .withDuration(DefaultDriverOption.RECONNECTION_MAX_DELAY, settings.reconnectMaxDelay())
                .build();
        var builder = CqlSession.builder()
                .withConfigLoader(config)
                .withLocalDatacenter(settings.localDatacenter())
                .withKeyspace(settings.keyspace());
        for (String host : settings.hosts()) {
            builder.addContactPoint(InetSocketAddress.createUnresolved(host, settings.port()));
        }
        if (settings.onlyHosts()) {
            // IGNORED: no pool, never a coordinator; null leaves the others to the policy
            Set<String> hosts = Set.copyOf(settings.hosts());
            builder.withNodeDistanceEvaluator((node, localDc) ->
                    hosts.contains(hostOf(node.getEndPoint().resolve())) ? null : NodeDistance.IGNORED);
        }
        return new CassandraConnection(settings, builder.build());
    }

    /** The address as hosts names it: its IP text, or the unresolved name it was given. */
    private static String hostOf(SocketAddress address) {
        if (address instanceof InetSocketAddress inet) {
            return inet.getAddress() != null ? inet.getAddress().getHostAddress() : inet.getHostString();
        }
        return address.toString();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    CassandraSettings settings() {
        return settings;
    }

    CqlSession session() {
        return session;
    }

    PreparedStatements statements() {
        return statements;
    }

    @Override
    public void close() {
        session.close();
    }
}

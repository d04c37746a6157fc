package io.flashchunk.ycsb.cassandra;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Where and how the binding talks to Cassandra, read from YCSB properties ({@code -p name=value}).
 * Names follow YCSB's former Cassandra binding where it had one.
 */
public record CassandraSettings(List<String> hosts, int port, String localDatacenter, String keyspace,
        ConsistencyLevel readConsistency, ConsistencyLevel writeConsistency,
        Duration connectTimeout, Duration requestTimeout, Duration reconnectMaxDelay, boolean onlyHosts,
        Duration connectWait) {
    public static final String HOSTS = "hosts";
    public static final String PORT = "port";
    public static final String LOCAL_DC = "cassandra.localdc";
    public static final String KEYSPACE = "cassandra.keyspace";
    public static final String READ_CONSISTENCY = "cassandra.readconsistencylevel";
    public static final String WRITE_CONSISTENCY = "cassandra.writeconsistencylevel";
    public static final String CONNECT_TIMEOUT = "cassandra.connecttimeoutmillis";
    public static final String REQUEST_TIMEOUT = "cassandra.requesttimeoutmillis";
    public static final String RECONNECT_MAX_DELAY = "cassandra.reconnectmaxmillis";
    /**
     * true: only the nodes named in {@code hosts} coordinate requests; the driver ignores the others
     * it discovers. A cluster test pins one node so that a read at ONE is that node's.
     */
    public static final String ONLY_HOSTS = "cassandra.onlyhosts";
    /**
     * How long a client keeps trying its first connection (a node restarting); 0, the default, tries
     * once, as YCSB's bindings do.
     */
    public static final String CONNECT_WAIT = "cassandra.connectwaitmillis";

    public static final int DEFAULT_PORT = 9042;
    public static final String DEFAULT_LOCAL_DC = "datacenter1";
    public static final String DEFAULT_KEYSPACE = "ycsb";
    public static final String DEFAULT_CONSISTENCY = "ONE";
    public static final int DEFAULT_CONNECT_TIMEOUT_MILLIS = 5_000;
    /** Longer than the driver's 2 s: a node busy with compaction on two cores answers late, not never. */
    public static final int DEFAULT_REQUEST_TIMEOUT_MILLIS = 12_000;
    /** The driver's own: after a node returns, the client may take this long to notice. */
    public static final int DEFAULT_RECONNECT_MAX_DELAY_MILLIS = 60_000;

    /** Reads the settings; an {@link IllegalArgumentException} names the bad one. */
    public static CassandraSettings from(Properties properties) {
        return new CassandraSettings(
                hosts(properties),
                intInRange(properties, PORT, DEFAULT_PORT, 1, 65_535),
                nonEmpty(properties, LOCAL_DC, DEFAULT_LOCAL_DC),
                nonEmpty(properties, KEYSPACE, DEFAULT_KEYSPACE),
                consistency(properties, READ_CONSISTENCY),
                consistency(properties, WRITE_CONSISTENCY),
                Duration.ofMillis(intInRange(properties, CONNECT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT_MILLIS, 1, Integer.MAX_VALUE)),
                Duration.ofMillis(intInRange(properties, REQUEST_TIMEOUT, DEFAULT_REQUEST_TIMEOUT_MILLIS, 1, Integer.MAX_VALUE)),
                Duration.ofMillis(intInRange(properties, RECONNECT_MAX_DELAY, DEFAULT_RECONNECT_MAX_DELAY_MILLIS, 1,
                        Integer.MAX_VALUE)),
                bool(properties, ONLY_HOSTS),
                Duration.ofMillis(intInRange(properties, CONNECT_WAIT, 0, 0, Integer.MAX_VALUE)));
    }

    private static List<String> hosts(Properties properties) {
        String text = properties.getProperty(HOSTS);
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException(HOSTS + " is required: a comma-separated list of Cassandra hosts,"
                    + " e.g. -p " + HOSTS + "=127.0.0.1");
        }
        List<String> hosts = new ArrayList<>();
        for (String host : text.split(",")) {
            if (host.isBlank()) {
                throw new IllegalArgumentException(HOSTS + " has an empty entry: '" + text + "'");
            }
            hosts.add(host.trim());
        }
        return List.copyOf(hosts);
    }

    private static int intInRange(Properties properties, String name, int fallback, int min, int max) {
        String text = properties.getProperty(name);
        if (text == null) {
            return fallback;
        }
        try {
            int value = Integer.parseInt(text.trim());
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below with the range
        }
        throw new IllegalArgumentException(name + " must be an integer from " + min + " to " + max + ", got '" + text + "'");
    }

    private static boolean bool(Properties properties, String name) {
        String text = properties.getProperty(name, "false").trim();
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(text);
        }
        throw new IllegalArgumentException(name + " must be true or false, got '" + text + "'");
    }

    private static String nonEmpty(Properties properties, String name, String fallback) {
        String value = properties.getProperty(name, fallback).trim();
        if (value.isEmpty()) {
            throw new IllegalArgumentException(name + " must not be empty");
        }
        return value;
    }

    private static ConsistencyLevel consistency(Properties properties, String name) {
        String text = properties.getProperty(name, DEFAULT_CONSISTENCY);
        try {
            return DefaultConsistencyLevel.valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + " must be one of " + List.of(DefaultConsistencyLevel.values())
                    + ", got '" + text + "'");
        }
    }
}

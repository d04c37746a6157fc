package io.flashchunk.cassandra.it;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A real Cassandra node for integration tests (5.0.9 unless a test names another release), run by
 * the same script operators use ({@code scripts/cassandra-node.sh}) in its own run directory on free
 * ports.
 */
final class CassandraNode implements AutoCloseable {
    static final String LOADER = "io.flashchunk.cassandra.config.FlashChunkConfigurationLoader";
    static final String CACHE_CLASS = "io.flashchunk.cassandra.CassandraFlashCache";
    private static final String HEAP = "640M";

    final Path dir;
    final int nativePort;
    final int jmxPort;
    private final Map<String, String> environment = new HashMap<>();
    private final List<String> startOptions = new ArrayList<>();
    private CqlSession session;
    private JMXConnector jmx;

    private CassandraNode(Path dir, int nativePort, int jmxPort) {
        this.dir = dir;
        this.nativePort = nativePort;
        this.jmxPort = jmxPort;
    }

    /** A node whose cassandra.yaml has {@code yamlExtra} appended; with the agent and loader when {@code withAgent}. */
    static CassandraNode create(String name, boolean withAgent, String yamlExtra) throws IOException {
        return create(name, null, withAgent, yamlExtra);
    }

    /** As above, of Cassandra {@code version} (the launcher's default when null). */
    static CassandraNode create(String name, String version, boolean withAgent, String yamlExtra) throws IOException {
        Path dir = Path.of(System.getProperty("flashchunk.test.scratchDir", "target/it-scratch"))
                .toAbsolutePath().resolve(name + "-" + System.nanoTime());
        Files.createDirectories(dir.getParent());
        int[] ports = freePorts(3);
        CassandraNode node = new CassandraNode(dir, ports[0], ports[2]);
        List<String> init = new ArrayList<>(List.of("init", dir.toString(), "--native-port", Integer.toString(ports[0]),
                "--storage-port", Integer.toString(ports[1]), "--jmx-port", Integer.toString(ports[2])));
        if (version != null) {
            init.addAll(List.of("--cassandra-version", version));
        }
        node.script(init.toArray(String[]::new)).orFail("init");
        Files.writeString(dir.resolve("conf/cassandra.yaml"), "\n" + yamlExtra + "\n", StandardOpenOption.APPEND);
        if (withAgent) {
            Files.writeString(dir.resolve("conf/jvm-extra.options"),
                    "-javaagent:" + agentJar() + "\n-Dcassandra.config.loader=" + LOADER + "\n");
        }
        return node;
    }

    /**
     * A node with the flash cache on one sparse file device of {@code deviceBytes} in its run
     * directory; {@code cacheSettings} go inside the flash_chunk_cache block, {@code yamlExtra} at top level.
     */
    static CassandraNode withFlashCache(String name, long deviceBytes, String cacheSettings, String yamlExtra)
            throws IOException {
        return withFlashCache(name, deviceBytes, "", cacheSettings, yamlExtra);
    }

    /** As above, with {@code deviceSettings} (e.g. {@code engine: capi}) in the device's entry. */
    static CassandraNode withFlashCache(String name, long deviceBytes, String deviceSettings, String cacheSettings,
                                        String yamlExtra) throws IOException {
        return withFlashCache(name, null, deviceBytes, deviceSettings, cacheSettings, yamlExtra);
    }

    /** As above, of Cassandra {@code version} (the launcher's default when null). */
    static CassandraNode withFlashCache(String name, String version, long deviceBytes, String deviceSettings,
                                        String cacheSettings, String yamlExtra) throws IOException {
        CassandraNode node = create(name, version, true, yamlExtra);
        Path device = node.createDevice(deviceBytes);
        Files.writeString(node.dir.resolve("conf/cassandra.yaml"), flashCacheYaml(device, deviceSettings, cacheSettings),
                StandardOpenOption.APPEND);
        return node;
    }

    /** A sparse file of {@code bytes} in the run directory, for a flash device. */
    Path createDevice(long bytes) throws IOException {
        Path device = device();
        try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(device.toFile(), "rw")) {
            file.setLength(bytes);
        }
        return device;
    }

    Path device() {
        return dir.resolve("flash.img");
    }

    /** The yaml lines that turn the flash cache on with one file device. */
    static String flashCacheYaml(Path device, String deviceSettings, String moreSettings) {
        return "chunk_cache_class: " + CACHE_CLASS + "\n"
                + "flash_chunk_cache:\n"
                + "  devices:\n"
                + "    - path: " + device + "\n"
                + deviceSettings.indent(6)
                + moreSettings.indent(2);
    }

    static Path agentJar() {
        Path jar = Path.of(System.getProperty("flashchunk.test.agentJar", "target/flashchunk-cassandra.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the agent jar " + jar + " is missing: run the integration tests with mvn verify");
        }
        return jar.toAbsolutePath();
    }

    /** Adds a JVM option (one line of conf/jvm-extra.options) for the node's next start. */
    CassandraNode jvmOption(String option) throws IOException {
        Files.writeString(dir.resolve("conf/jvm-extra.options"), option + "\n", StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        return this;
    }

    /** Sets an environment variable for the node's JVM (e.g. fault injection of our capiblock library). */
    CassandraNode environment(String name, String value) {
        environment.put(name, value);
        return this;
    }

    /** Starts the node on {@code java} (the launcher's {@code start --java}) from now on. */
    CassandraNode java(Path java) {
        startOptions.addAll(List.of("--java", java.toString()));
        return this;
    }

    /** Starts the node and waits for CQL; fails the test if it does not start. */
    void start() {
        startResult().orFail("start");
    }

    /** Starts the node; the result tells whether it came up. */
    ScriptResult startResult() {
        closeClients();
        List<String> start = new ArrayList<>(List.of("start", dir.toString(), "--heap", HEAP, "--wait-seconds", "240"));
        start.addAll(startOptions);
        return script(start.toArray(String[]::new));
    }

    void stop() {
        closeClients();
        script("stop", dir.toString()).orFail("stop");
    }

    /** SIGKILL: a crash, no shutdown hooks. */
    void kill() {
        closeClients();
        script("kill", dir.toString()).orFail("kill");
    }

    String nodetool(String... arguments) {
        List<String> command = new ArrayList<>(List.of("nodetool", dir.toString()));
        command.addAll(List.of(arguments));
        return script(command.toArray(String[]::new)).orFail("nodetool " + String.join(" ", arguments));
    }

    String systemLog() throws IOException {
        return Files.readString(dir.resolve("logs/system.log"));
    }

    CqlSession session() {
        if (session == null) {
            session = CqlSession.builder()
                    .addContactPoint(new InetSocketAddress("127.0.0.1", nativePort))
                    .withLocalDatacenter("datacenter1")
                    .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                            .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(60))
                            .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, Duration.ofSeconds(30))
                            .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, Duration.ofSeconds(60))
                            .build())
                    .build();
        }
        return session;
    }

    /** An attribute of the flash cache's MXBean, or of any other bean. */
    Object jmxAttribute(String objectName, String attribute) throws Exception {
        if (jmx == null) {
            jmx = JMXConnectorFactory.connect(new JMXServiceURL(
                    "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi"));
        }
        MBeanServerConnection connection = jmx.getMBeanServerConnection();
        return connection.getAttribute(new ObjectName(objectName), attribute);
    }

    /** The names of the node's live threads, through its JMX port. */
    List<String> threadNames() throws Exception {
        jmxAttribute("java.lang:type=Threading", "ThreadCount"); // connects
        ThreadMXBean threads = ManagementFactory.newPlatformMXBeanProxy(jmx.getMBeanServerConnection(),
                ManagementFactory.THREAD_MXBEAN_NAME, ThreadMXBean.class);
        List<String> names = new ArrayList<>();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null) { // ended since the ids were taken
                names.add(info.getThreadName());
            }
        }
        return names;
    }

    long flashStat(String attribute) throws Exception {
        return ((Number) jmxAttribute("io.flashchunk:type=FlashChunkCache", attribute)).longValue();
    }

    @Override
    public void close() {
        closeClients();
        script("stop", dir.toString());
    }

    private void closeClients() {
        if (session != null) {
            session.close();
            session = null;
        }
        if (jmx != null) {
            try {
                jmx.close();
            } catch (IOException ignored) {
                // the node may be gone already
            }
            jmx = null;
        }
    }

    ScriptResult script(String... arguments) {
        Path script = Path.of(System.getProperty("flashchunk.test.scriptsDir", "../scripts"), "cassandra-node.sh");
        List<String> command = new ArrayList<>(List.of("bash", script.toString()));
        command.addAll(List.of(arguments));
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().putAll(environment);
            Process process = builder.start();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
            }
            return new ScriptResult(String.join(" ", arguments), process.exitValue(),
                    new String(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int[] freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
    }

    record ScriptResult(String what, int exitCode, String output) {
        String orFail(String step) {
            if (exitCode != 0) {
                throw new AssertionError("cassandra-node.sh " + what + " failed (exit " + exitCode + "):\n" + output);
            }
            return output;
        }
    }
}

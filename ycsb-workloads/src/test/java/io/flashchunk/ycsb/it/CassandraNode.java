package io.flashchunk.ycsb.it;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Cassandra 5.0.9 node, run by scripts/cassandra-node.sh in its own directory under
 * target/ on free ports (a trimmed copy of the plugin module's test fixture).
 */
final class CassandraNode implements AutoCloseable {
    private static final String HEAP = "640M";

    final Path dir;
    final int nativePort;

    private CassandraNode(Path dir, int nativePort) {
        this.dir = dir;
        this.nativePort = nativePort;
    }

    static CassandraNode start(String name) throws IOException {
        Path dir = Path.of(System.getProperty("flashchunk.test.scratchDir", "target/it-scratch"))
                .toAbsolutePath().resolve(name + "-" + System.nanoTime());
        Files.createDirectories(dir.getParent());
        int[] ports = freePorts(3);
        Script.run("cassandra-node.sh", "init", dir.toString(), "--native-port", Integer.toString(ports[0]),
                "--storage-port", Integer.toString(ports[1]), "--jmx-port", Integer.toString(ports[2])).orFail();
        CassandraNode node = new CassandraNode(dir, ports[0]);
        Script.Result started = Script.run("cassandra-node.sh", "start", dir.toString(), "--heap", HEAP,
                "--wait-seconds", "240");
        if (started.exitCode() != 0) {
            node.close();
            started.orFail();
        }
        return node;
    }

    String nodetool(String... arguments) {
        List<String> command = new ArrayList<>(List.of("nodetool", dir.toString()));
        command.addAll(List.of(arguments));
        return Script.run("cassandra-node.sh", command.toArray(String[]::new)).orFail();
    }

    @Override
    public void close() {
        Script.run("cassandra-node.sh", "stop", dir.toString());
    }

    private static int[] freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
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
}

package io.flashchunk.ycsb.cassandra;

import static com.datastax.oss.driver.api.querybuilder.SchemaBuilder.createKeyspace;
import static com.datastax.oss.driver.api.querybuilder.SchemaBuilder.createTable;
import static com.datastax.oss.driver.api.querybuilder.SchemaBuilder.dropTable;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DriverException;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.type.DataTypes;
import com.datastax.oss.driver.api.querybuilder.BuildableQuery;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code scripts/ycsb.sh create-table}: the keyspace and the YCSB table the binding writes to, with
 * the compression the benchmark asks for.
 */
@Command(name = "create-table", mixinStandardHelpOptions = true,
        description = "Creates keyspace and table for YCSB: y_id text primary key, field0..fieldN-1 text.")
public final class CreateTableCommand implements Callable<Integer> {
    /** Schema changes wait for every node to agree; a node on two busy cores may take a while. */
    private static final Duration SCHEMA_TIMEOUT = Duration.ofSeconds(60);

    @Spec
    private CommandSpec spec;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "contact point (default ${DEFAULT-VALUE})")
    private String host;

    @Option(names = "--native-port", defaultValue = "9042", description = "CQL port (default ${DEFAULT-VALUE})")
    private int nativePort;

    @Option(names = "--local-dc", defaultValue = CassandraSettings.DEFAULT_LOCAL_DC,
            description = "the driver's local datacenter (default ${DEFAULT-VALUE})")
    private String localDc;

    @Option(names = "--keyspace", defaultValue = CassandraSettings.DEFAULT_KEYSPACE, description = "(default ${DEFAULT-VALUE})")
    private String keyspace;

    @Option(names = "--table", defaultValue = "usertable", description = "(default ${DEFAULT-VALUE})")
    private String table;

    @Option(names = "--fields", defaultValue = "10", description = "number of fields, like YCSB's fieldcount (default ${DEFAULT-VALUE})")
    private int fields;

    @Option(names = "--replication-factor", defaultValue = "1",
            description = "SimpleStrategy replication of a new keyspace (default ${DEFAULT-VALUE})")
    private int replicationFactor;

    @Option(names = "--compressor", description = "SSTable compressor class, e.g. LZ4Compressor, ZstdCompressor"
            + " (default: Cassandra's, LZ4Compressor)")
    private String compressor;

    @Option(names = "--chunk-kb", description = "compression chunk_length_in_kb, a power of two (default: Cassandra's, 16)")
    private Integer chunkKb;

    @Option(names = "--compression-level", description = "the compressor's compression_level (ZstdCompressor:"
            + " Cassandra's default 3)")
    private Integer compressionLevel;

    @Option(names = "--no-compression", description = "store SSTables uncompressed")
    private boolean noCompression;

    @Option(names = "--drop", description = "drop the table first if it exists (otherwise an existing table is an error)")
    private boolean drop;

    public static void main(String[] args) {
        System.exit(new CommandLine(new CreateTableCommand()).execute(args));
    }

    @Override
    public Integer call() {
        BuildableQuery statement = validatedTable();
        CqlSession session;
        try {
            session = connect();
        } catch (AllNodesFailedException e) {
            System.err.println("create-table: error: no Cassandra answers at " + host + ":" + nativePort
                    + " (--host, --native-port): " + e.getMessage());
            return 1;
        }
        try (session) {
            session.execute(createKeyspace(keyspace).ifNotExists().withSimpleStrategy(replicationFactor).build());
            if (drop) {
                session.execute(dropTable(keyspace, table).ifExists().build());
            }
            if (session.getMetadata().getKeyspace(keyspace).flatMap(k -> k.getTable(table)).isPresent()) {
                System.err.println("create-table: error: table " + keyspace + "." + table
                        + " exists already; pass --drop to replace it");
                return 1;
            }
            SimpleStatement create = statement.build();
            session.execute(create);
            System.out.println("created: " + create.getQuery());
        } catch (DriverException e) {
            // e.g. an unknown --compressor: Cassandra's message says what it refused.
            System.err.println("create-table: error: " + e.getMessage());
            return 1;
        }
        return 0;
    }

    /** The CREATE TABLE statement, after checking the options against each other. */
    BuildableQuery validatedTable() {
        if (fields < 1) {
            throw new ParameterException(spec.commandLine(), "--fields must be at least 1, got " + fields);
        }
        if (replicationFactor < 1) {
            throw new ParameterException(spec.commandLine(), "--replication-factor must be at least 1, got " + replicationFactor);
        }
        if (nativePort < 1 || nativePort > 65_535) {
            throw new ParameterException(spec.commandLine(), "--native-port must be from 1 to 65535, got " + nativePort);
        }
        if (noCompression && (compressor != null || chunkKb != null || compressionLevel != null)) {
            throw new ParameterException(spec.commandLine(),
                    "--no-compression cannot be combined with --compressor, --chunk-kb or --compression-level");
        }
        if (compressionLevel != null && compressor == null) {
            // LZ4Compressor, Cassandra's default, has no level: name the compressor that takes one.
            throw new ParameterException(spec.commandLine(), "--compression-level needs --compressor (e.g. ZstdCompressor)");
        }
        if (chunkKb != null && (chunkKb < 1 || Integer.bitCount(chunkKb) != 1)) {
            throw new ParameterException(spec.commandLine(), "--chunk-kb must be a power of two, got " + chunkKb);
        }
        if (compressor != null && compressor.isBlank()) {
            throw new ParameterException(spec.commandLine(), "--compressor must not be empty");
        }
        return tableStatement();
    }

    private BuildableQuery tableStatement() {
        var withColumns = createTable(keyspace, table)
                .withPartitionKey(PreparedStatements.KEY_COLUMN, DataTypes.TEXT)
                .withColumn("field0", DataTypes.TEXT);
        for (int i = 1; i < fields; i++) {
            withColumns = withColumns.withColumn("field" + i, DataTypes.TEXT);
        }
        if (noCompression) {
            return withColumns.withOption("compression", Map.of("enabled", "false"));
        }
        if (compressor == null && chunkKb == null && compressionLevel == null) {
            return withColumns;
        }
        // Cassandra 5.0's own option names; the driver's helpers still write the pre-4.0 ones.
        Map<String, Object> compression = new LinkedHashMap<>();
        compression.put("class", compressor == null ? "LZ4Compressor" : compressor);
        if (chunkKb != null) {
            compression.put("chunk_length_in_kb", chunkKb);
        }
        if (compressionLevel != null) {
            compression.put("compression_level", compressionLevel);
        }
        return withColumns.withOption("compression", compression);
    }

    private CqlSession connect() {
        return CqlSession.builder()
                .addContactPoint(InetSocketAddress.createUnresolved(host, nativePort))
                .withLocalDatacenter(localDc)
                .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, SCHEMA_TIMEOUT)
                        .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, SCHEMA_TIMEOUT)
                        .withDuration(DefaultDriverOption.CONTROL_CONNECTION_AGREEMENT_TIMEOUT, SCHEMA_TIMEOUT)
                        .build())
                .build();
    }
}

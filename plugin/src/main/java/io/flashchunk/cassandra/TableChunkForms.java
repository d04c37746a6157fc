package io.flashchunk.cassandra;

import io.flashchunk.cassandra.config.CacheSettings;
import io.flashchunk.cassandra.config.ChunksOnFlash;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BinaryOperator;
import org.apache.cassandra.io.compress.CompressionMetadata;
import org.apache.cassandra.io.util.ChunkReader;
import org.apache.cassandra.io.util.CompressedChunkReader;
import org.apache.cassandra.schema.CompressionParams;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.TableMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a data file's chunks are stored compressed on flash, as {@link ChunksOnFlash} says for its
 * table and the table's compressor: the table from the file's path (Cassandra's
 * {@code <keyspace>/<table>-<id>/<file>} layout, a secondary index's files one directory below), its
 * compressor from the schema, the table's as the operator set it (a file's own may differ: Cassandra
 * flushes with LZ4 the tables it compresses with Zstd or Deflate, {@code flush_compression: fast});
 * from the file's reader only when the schema does not know the table. Each table's choice is logged
 * once.
 */
final class TableChunkForms {
    private static final Logger LOG = LoggerFactory.getLogger(TableChunkForms.class);
    /** Set by the configuration loader before the cache starts; nothing compressed until then. */
    private static volatile ChunksOnFlash setting = ChunksOnFlash.UNCOMPRESSED;

    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    static void configure(ChunksOnFlash chunksOnFlash) {
        setting = chunksOnFlash;
        if (!chunksOnFlash.allUncompressed()) {
            LOG.info("flash chunk cache: {}", chunksOnFlash.describe());
        }
    }

    /**
     * Warns of each table {@code chunks_on_flash_by_table} names that the schema does not know as the node
     * starts its client transports (its own schema loaded; changes made elsewhere while it was down may
     * not have arrived yet): a name mistyped would otherwise leave its table's chunks as the general
     * setting says, with nothing said.
     */
    static void checkTablesSetApart() {
        ChunksOnFlash chunksOnFlash = setting;
        List<String> unknown = tablesNotInSchema(chunksOnFlash, TableChunkForms::schemaCompressor);
        if (unknown == null) {
            LOG.info("flash chunk cache: the tables {}.chunks_on_flash_by_table names cannot be checked against "
                    + "this node's schema", CacheSettings.BLOCK);
            return;
        }
        for (String name : unknown) {
            LOG.warn("flash chunk cache: {}.chunks_on_flash_by_table names {}, which this node's schema does not "
                    + "know as it starts: mistyped, or not created (or not yet received from the cluster); its line "
                    + "applies once such a table exists here", CacheSettings.BLOCK, name);
        }
    }

    /**
     * The tables {@code chunksOnFlash} sets apart that {@code schema} (keyspace and table to compressor,
     * as {@link #schemaCompressor}) does not know; null when it knows not even {@code system.local}, so
     * cannot be asked here, and no name can be called unknown.
     */
    static List<String> tablesNotInSchema(ChunksOnFlash chunksOnFlash, BinaryOperator<String> schema) {
        List<String> names = chunksOnFlash.tablesSetApart();
        if (names.isEmpty()) {
            return List.of();
        }
        if (NOT_IN_SCHEMA.equals(schema.apply("system", "local"))) {
            return null;
        }
        List<String> unknown = new ArrayList<>();
        for (String name : names) {
            int dot = name.indexOf('.');
            if (NOT_IN_SCHEMA.equals(schema.apply(name.substring(0, dot), name.substring(dot + 1)))) {
                unknown.add(name);
            }
        }
        return unknown;
    }

    /** Whether the chunks {@code reader} gives of the data file at {@code path} are stored compressed. */
    boolean compress(ChunkReader reader, String path) {
        ChunksOnFlash chunksOnFlash = setting;
        if (chunksOnFlash.allUncompressed()) {
            return false; // the default: no table to look up, nothing to log
        }
        String[] table = keyspaceAndTable(path);
        // The schema is asked only under auto: other choices need no compressor.
        boolean auto = chunksOnFlash.dependsOnCompressor(table[0], table[1]);
        String fromSchema = auto ? schemaCompressor(table[0], table[1]) : NOT_IN_SCHEMA;
        boolean schemaKnows = !NOT_IN_SCHEMA.equals(fromSchema);
        String compressor = !auto ? null : schemaKnows ? fromSchema : compressor(reader);
        boolean compress = chunksOnFlash.compress(table[0], table[1], compressor);
        if (logged.add(table[0] + "." + table[1])) {
            LOG.info("flash chunk cache: chunks of {}.{} are stored {} on flash ({})", table[0], table[1],
                    compress ? "compressed" : "uncompressed",
                    !auto ? "as set"
                            : "auto, " + (schemaKnows ? "the table's" : "its file's (the schema did not say)")
                                    + " compressor: " + (compressor == null ? "none" : compressor));
        }
        return compress;
    }

    /**
     * The keyspace and table of the data file at {@code path}, by Cassandra's directory layout (either
     * null when the path has too few directories).
     */
    static String[] keyspaceAndTable(String path) {
        Path tableDirectory = Path.of(path).getParent();
        if (tableDirectory != null && tableDirectory.getFileName() != null
                && tableDirectory.getFileName().toString().startsWith(".")) {
            tableDirectory = tableDirectory.getParent(); // a secondary index's files: its table's choice
        }
        Path keyspaceDirectory = tableDirectory == null ? null : tableDirectory.getParent();
        String table = tableDirectory == null || tableDirectory.getFileName() == null ? null
                : tableName(tableDirectory.getFileName().toString());
        String keyspace = keyspaceDirectory == null || keyspaceDirectory.getFileName() == null ? null
                : keyspaceDirectory.getFileName().toString();
        return new String[] {keyspace, table};
    }

    /** A table directory's name without the table's id ({@code name-<32 hex digits>}). */
    static String tableName(String directory) {
        int dash = directory.lastIndexOf('-');
        return dash > 0 && directory.length() - dash - 1 == 32 ? directory.substring(0, dash) : directory;
    }

    /** {@link #schemaCompressor}'s answer when the schema does not know the table, or cannot be asked here. */
    static final String NOT_IN_SCHEMA = "(not in the schema)";

    /**
     * The simple class name of the compressor the schema gives {@code keyspace.table}, null when it
     * is not compressed, {@link #NOT_IN_SCHEMA} when the schema does not know it (or cannot be asked
     * here: early in a start, or a release whose schema answers otherwise).
     */
    static String schemaCompressor(String keyspace, String table) {
        if (keyspace == null || table == null) {
            return NOT_IN_SCHEMA;
        }
        try {
            // Schema.instance is a Schema in 4.1 and 5.0, a SchemaProvider in 6.0: asked by reflection.
            Object schema = Schema.class.getField("instance").get(null);
            Object metadata = schema == null ? null : schema.getClass()
                    .getMethod("getTableMetadata", String.class, String.class).invoke(schema, keyspace, table);
            if (metadata instanceof TableMetadata) {
                CompressionParams compression = ((TableMetadata) metadata).params.compression;
                return compression.isEnabled() ? compression.klass().getSimpleName() : null;
            }
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            // the file's own compressor says it
        }
        return NOT_IN_SCHEMA;
    }

    /** The simple class name of the compressor of a compressed file's reader; null for any other reader. */
    static String compressor(ChunkReader reader) {
        if (!(reader instanceof CompressedChunkReader) || ReaderMetadata.FIELD == null) {
            return null;
        }
        try {
            CompressionMetadata metadata = (CompressionMetadata) ReaderMetadata.FIELD.get(reader);
            return metadata == null || metadata.compressor() == null ? null
                    : metadata.compressor().getClass().getSimpleName();
        } catch (IllegalAccessException | RuntimeException e) {
            return null;
        }
    }

    /** The reader's compression metadata, looked up once it is first needed. */
    private static final class ReaderMetadata {
        /** A field of the reader's, package-private in 4.1, 5.0 and 6.0; null when not there. */
        static final Field FIELD = metadataField();
    }

    private static Field metadataField() {
        try {
            Field field = CompressedChunkReader.class.getDeclaredField("metadata");
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warn("flash chunk cache: the compressor of a compressed SSTable cannot be read here ({}): "
                    + "chunks_on_flash: auto takes a table the schema does not know for uncompressed", e.toString());
            return null;
        }
    }
}

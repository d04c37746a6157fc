package io.flashchunk.cassandra;

import io.flashchunk.cassandra.config.ChunksOnFlash;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
    /** The reader's compression metadata: a field of the reader's, package-private in 4.1, 5.0 and 6.0. */
    private static final Field METADATA = metadataField();

    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    static void configure(ChunksOnFlash chunksOnFlash) {
        setting = chunksOnFlash;
        LOG.info("flash chunk cache: {}", chunksOnFlash.describe());
    }

    /** Whether the chunks {@code reader} gives of the data file at {@code path} are stored compressed. */
    boolean compress(ChunkReader reader, String path) {
        String[] table = keyspaceAndTable(path);
        String compressor = tableCompressor(table[0], table[1], reader);
        boolean compress = setting.compress(table[0], table[1], compressor);
        if (logged.add(table[0] + "." + table[1])) {
            LOG.info("flash chunk cache: chunks of {}.{} are stored {} on flash (the table's compressor: {})",
                    table[0], table[1], compress ? "compressed" : "uncompressed", compressor == null ? "none" : compressor);
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

    /**
     * The simple class name of the compressor the schema gives {@code keyspace.table}, null when it
     * is not compressed; when the schema does not know it (or cannot be asked here), the compressor
     * of the file {@code reader} reads.
     */
    static String tableCompressor(String keyspace, String table, ChunkReader reader) {
        if (keyspace != null && table != null) {
            try {
                TableMetadata metadata = Schema.instance.getTableMetadata(keyspace, table);
                if (metadata != null) {
                    CompressionParams compression = metadata.params.compression;
                    return compression.isEnabled() ? compression.klass().getSimpleName() : null;
                }
            } catch (LinkageError | RuntimeException e) {
                // a release whose schema answers otherwise: the file's own compressor says it
            }
        }
        return compressor(reader);
    }

    /** The simple class name of the compressor of a compressed file's reader; null for any other reader. */
    static String compressor(ChunkReader reader) {
        if (!(reader instanceof CompressedChunkReader) || METADATA == null) {
            return null;
        }
        try {
            CompressionMetadata metadata = (CompressionMetadata) METADATA.get(reader);
            return metadata == null || metadata.compressor() == null ? null
                    : metadata.compressor().getClass().getSimpleName();
        } catch (IllegalAccessException | RuntimeException e) {
            return null;
        }
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

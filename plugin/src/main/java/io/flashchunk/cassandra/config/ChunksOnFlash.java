package io.flashchunk.cassandra.config;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What flash holds of each table's chunks: {@code chunks_on_flash} ({@code uncompressed}, the
 * default; {@code compressed}; or {@code auto}) and {@code chunks_on_flash_by_table}, a map of
 * {@code keyspace.table} to {@code compressed} or {@code uncompressed} that overrides it per table.
 *
 * <p>Compressed chunks (LZ4, a chunk stored so only when that saves at least an eighth of it) take
 * less flash, so the same device holds more of them, and a hit reads fewer bytes; each hit then costs
 * a decompression. {@code auto} stores compressed the chunks of tables Cassandra compresses with
 * LZ4 (whose reads already pay an LZ4 decompression on every miss, and whose data LZ4 is known to
 * shrink), and uncompressed those of tables compressed otherwise (Zstd, Deflate, Snappy: chosen for
 * their ratio or left as they were) or not at all.
 *
 * <p>Free of Cassandra classes, like {@link CacheSettings}: the adapter gives the table and its
 * compressor's class name.
 */
public final class ChunksOnFlash {
    /** Nothing compressed: the chunks as Cassandra's reader gives them. */
    public static final ChunksOnFlash UNCOMPRESSED = new ChunksOnFlash(Choice.UNCOMPRESSED, Map.of());
    /** The compressor Cassandra names LZ4: the one {@code auto} stores compressed. */
    static final String LZ4_COMPRESSOR = "LZ4Compressor";

    enum Choice {
        AUTO, COMPRESSED, UNCOMPRESSED;

        static Choice parse(String at, Object value, boolean autoAllowed) {
            String text = value instanceof String ? ((String) value).trim().toLowerCase(Locale.ROOT) : null;
            for (Choice choice : values()) {
                if (choice.name().toLowerCase(Locale.ROOT).equals(text) && (autoAllowed || choice != AUTO)) {
                    return choice;
                }
            }
            throw new IllegalArgumentException(at + ": '" + value + "' is not "
                    + (autoAllowed ? "auto, compressed or uncompressed" : "compressed or uncompressed"));
        }
    }

    private final Choice choice;
    private final Map<String, Choice> byTable;

    private ChunksOnFlash(Choice choice, Map<String, Choice> byTable) {
        this.choice = choice;
        this.byTable = byTable;
    }

    /** The two settings of {@code block} (the cache's yaml block); throws naming the setting that is wrong. */
    public static ChunksOnFlash parse(Map<?, ?> block) {
        String at = CacheSettings.BLOCK + ".";
        Choice choice = block.containsKey("chunks_on_flash")
                ? Choice.parse(at + "chunks_on_flash", block.get("chunks_on_flash"), true) : Choice.UNCOMPRESSED;
        Map<String, Choice> byTable = new HashMap<>();
        Object tables = block.get("chunks_on_flash_by_table");
        if (tables != null) {
            if (!(tables instanceof Map)) {
                throw new IllegalArgumentException(at + "chunks_on_flash_by_table: must be a block of "
                        + "keyspace.table: compressed or uncompressed lines, got '" + tables + "'");
            }
            for (Map.Entry<?, ?> table : ((Map<?, ?>) tables).entrySet()) {
                String name = String.valueOf(table.getKey());
                String where = at + "chunks_on_flash_by_table." + name;
                int dot = name.indexOf('.');
                if (dot < 1 || dot == name.length() - 1 || name.indexOf('.', dot + 1) != -1) {
                    throw new IllegalArgumentException(where + ": '" + name + "' is not keyspace.table");
                }
                byTable.put(name, Choice.parse(where, table.getValue(), false));
            }
        }
        return new ChunksOnFlash(choice, Map.copyOf(byTable));
    }

    /**
     * Whether chunks of {@code keyspace.table}'s data files are stored compressed, for a file that
     * Cassandra compresses with {@code compressor} (its class's simple name; null when the file is not
     * compressed or its compressor is not known).
     */
    public boolean compress(String keyspace, String table, String compressor) {
        Choice chosen = keyspace == null || table == null ? null : byTable.get(keyspace + "." + table);
        switch (chosen != null ? chosen : choice) {
            case COMPRESSED:
                return true;
            case AUTO:
                return LZ4_COMPRESSOR.equals(compressor);
            default:
                return false;
        }
    }

    /** Whether {@code keyspace.table}'s choice depends on its compressor ({@code auto} for it). */
    public boolean dependsOnCompressor(String keyspace, String table) {
        Choice chosen = keyspace == null || table == null ? null : byTable.get(keyspace + "." + table);
        return (chosen != null ? chosen : choice) == Choice.AUTO;
    }

    /** The tables {@code chunks_on_flash_by_table} names ({@code keyspace.table}), sorted. */
    public List<String> tablesSetApart() {
        return byTable.keySet().stream().sorted().collect(Collectors.toList());
    }

    /** Whether every table's chunks are stored uncompressed (the default): nothing to decide per table. */
    public boolean allUncompressed() {
        return choice == Choice.UNCOMPRESSED && !byTable.containsValue(Choice.COMPRESSED);
    }

    /** The setting as an operator would write it, for the log. */
    public String describe() {
        return "chunks_on_flash: " + choice.name().toLowerCase(Locale.ROOT)
                + (byTable.isEmpty() ? "" : ", " + byTable.size() + " table(s) set apart in chunks_on_flash_by_table");
    }
}

package io.flashchunk.cache.upgrade;

import io.flashchunk.cache.format.CheckpointFormat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Everything this version knows of the per-chunk engine it replaced (removed on 2026-11-25), in one
 * place: its settings, which an upgraded node may still carry in its yaml, and its device format,
 * which start reformats and the checkpoint tool names. A node upgraded from it starts, with one
 * warning per leftover, and never reads its chunks. Dropping the upgrade path later means deleting
 * this class and its callers' branches.
 */
public final class PerChunkEngine {
    /** The per-chunk engine's superblock format version (same magic as today's superblock). */
    public static final int SUPERBLOCK_VERSION = 1;

    /**
     * Its settings, removed with it: a node upgraded with them still in its yaml starts, with one
     * warning naming each (a tuning knob that no longer exists is no reason to keep a node down).
     */
    public static final Set<String> RETIRED_SETTINGS = Set.of("allocation_wait_ms", "space_reserve_percent",
            "read_ahead", "min_checkpoint_interval_ms", "maintenance_interval_ms", "rebalance_factor",
            "migration_batch");

    /** The setting that chose between it and today's engine; checked by {@link #checkEngineSetting}. */
    public static final String ENGINE_SETTING = "cache_engine";

    private PerChunkEngine() {
    }

    /** The warning for a retired setting found at {@code at} (for example {@code flash_chunk_cache.read_ahead}). */
    public static String retiredSettingWarning(String at) {
        return at + ": no longer used (it tuned the per-chunk engine, which was removed); ignored";
    }

    /**
     * {@code cache_engine: value} found at {@code at}: {@code compact} (today's engine) is accepted as
     * is; {@code classic} (the per-chunk engine) with a warning, since start reformats its devices
     * (their chunks dropped, never misread); anything else was never an engine, an error.
     */
    public static void checkEngineSetting(String at, String value, Consumer<String> warn) {
        switch (value) {
            case "compact":
                break;
            case "classic":
                warn.accept(at + ": 'classic' (the per-chunk engine) was removed; the "
                        + "compact engine runs instead and reformats devices of the old format at start (their cached "
                        + "chunks are dropped). Remove the setting");
                break;
            default:
                throw new IllegalArgumentException(at + ": '" + value + "' is not an engine; "
                        + "the only one is compact (the setting may be left out)");
        }
    }

    /** Whether {@code block} (a device's block 0) is the per-chunk engine's superblock. */
    public static boolean holdsFormat(ByteBuffer block) {
        ByteBuffer b = block.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return b.limit() >= 12 && b.getLong(0) == CheckpointFormat.SUPERBLOCK_MAGIC && b.getInt(8) == SUPERBLOCK_VERSION;
    }

    /** Start's warning for a device in its format, which it reformats. */
    public static String reformatWarning(String path) {
        return "flash cache: " + path + " holds the per-chunk engine's format; reformatting it for the engine "
                + "(its cached chunks are dropped, never read)";
    }

    /** The checkpoint tool's refusal of a device in its format. */
    public static String notReadByTool(String path) {
        return path + " holds the per-chunk engine's format, which this version no longer reads; "
                + "the cache reformats it at start (its cached chunks are dropped)";
    }
}

package io.flashchunk.cassandra.config;

import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.DataStorageSpec;

/**
 * The Java 11 side of {@link FlashChunkConfigurationLoader}: given the two keys the loader took out
 * of cassandra.yaml and the Config it built from the rest, starts the flash cache when they ask for
 * it (once per JVM, see {@link FlashChunkStartup}) and then makes Cassandra create the ChunkCache
 * whose methods carry the hooks. The loader calls it by reflection, and only on Java 11 or later.
 */
public final class FlashCacheActivation {
    private static final long SMALLEST_STOCK_FILE_CACHE_MIB = 64;

    private FlashCacheActivation() {
    }

    /** Starts the flash cache if the keys ask for it; throws ConfigurationException only in strict mode. */
    public static void apply(Object chunkCacheClass, Object block, Config config) {
        if (FlashChunkStartup.startOnce(chunkCacheClass, block)) {
            enableChunkCacheHooks(config);
        }
    }

    /**
     * Cassandra creates its ChunkCache (whose methods the agent hooks) only when the file cache is
     * enabled and larger than its 32 MiB reserve. With the flash cache on, that stock cache holds
     * nothing, so its size only needs to clear the bar.
     */
    private static void enableChunkCacheHooks(Config config) {
        config.file_cache_enabled = true;
        if (config.file_cache_size != null && config.file_cache_size.toMebibytes() < SMALLEST_STOCK_FILE_CACHE_MIB) {
            config.file_cache_size = new DataStorageSpec.IntMebibytesBound(SMALLEST_STOCK_FILE_CACHE_MIB);
        }
    }
}

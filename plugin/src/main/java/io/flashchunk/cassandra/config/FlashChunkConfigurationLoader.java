package io.flashchunk.cassandra.config;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.ConfigurationLoader;
import org.apache.cassandra.config.DataStorageSpec;
import org.apache.cassandra.config.YamlConfigurationLoader;
import org.apache.cassandra.exceptions.ConfigurationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Cassandra's configuration loader with the flash cache's settings taken out
 * ({@code -Dcassandra.config.loader=io.flashchunk.cassandra.config.FlashChunkConfigurationLoader}).
 * Cassandra refuses unknown keys in cassandra.yaml, so this reads the file, removes
 * {@code chunk_cache_class} and the {@code flash_chunk_cache} block, hands the rest to Cassandra's
 * own loader (all of its checks still apply), and starts the flash cache when the yaml asks for it.
 *
 * <p>Cassandra calls this several times per start (and offline tools call it too): it must be
 * idempotent and cheap after the first call, and return a fresh Config each time.
 */
public final class FlashChunkConfigurationLoader implements ConfigurationLoader {
    private static final Logger LOG = LoggerFactory.getLogger(FlashChunkConfigurationLoader.class);
    private static final long SMALLEST_STOCK_FILE_CACHE_MIB = 64;

    @Override
    public Config loadConfig() throws ConfigurationException {
        URL url = configUrl();
        Map<String, Object> yaml = read(url);
        Object chunkCacheClass = yaml.remove(FlashChunkStartup.CHUNK_CACHE_CLASS_KEY);
        Object block = yaml.remove(CacheSettings.BLOCK);
        Config config = YamlConfigurationLoader.fromMap(yaml, Config.class);
        if (FlashChunkStartup.startOnce(chunkCacheClass, block)) {
            enableChunkCacheHooks(config);
        }
        return config;
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

    /** Where Cassandra's own loader would look: {@code -Dcassandra.config}, a URL or a class-path resource. */
    static URL configUrl() {
        String location = System.getProperty("cassandra.config", "cassandra.yaml");
        try {
            URL url = new URL(location);
            url.openStream().close();
            return url;
        } catch (IOException e) {
            URL resource = FlashChunkConfigurationLoader.class.getClassLoader().getResource(location);
            if (resource == null) {
                throw new ConfigurationException("cannot read the configuration at " + location
                        + " (-Dcassandra.config): " + e.getMessage() + "; write a URL such as file:///etc/cassandra/cassandra.yaml");
            }
            return resource;
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> read(URL url) {
        try (InputStream in = url.openStream()) {
            Object root = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
            if (root == null) {
                return new LinkedHashMap<>();
            }
            if (!(root instanceof Map)) {
                throw new ConfigurationException("Invalid yaml: " + url + " must be a map of settings");
            }
            return new LinkedHashMap<>((Map<String, Object>) root);
        } catch (IOException e) {
            throw new ConfigurationException("cannot read " + url + ": " + e.getMessage());
        } catch (RuntimeException e) {
            if (e instanceof ConfigurationException) {
                throw e;
            }
            throw new ConfigurationException("Invalid yaml: " + url + ": " + e.getMessage());
        }
    }
}

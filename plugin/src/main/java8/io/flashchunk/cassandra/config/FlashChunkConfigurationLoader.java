package io.flashchunk.cassandra.config;

import io.flashchunk.cassandra.agent.RequiredJava;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.ConfigurationLoader;
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
 * {@code chunk_cache_class} and the {@code flash_chunk_cache} block and hands the rest to Cassandra's
 * own loader (all of its checks still apply). On Java 11 or later it then hands both keys to
 * {@link #ACTIVATION}, which starts the flash cache when they ask for it.
 *
 * <p>Compiled for Java 8, so that a node on an older Java still loads its configuration: there the
 * flash cache steps aside with one ERROR line naming the Java (or refuses to start under
 * {@code strict: true}), and Cassandra's own chunk cache serves.
 *
 * <p>Cassandra calls this several times per start (and offline tools call it too): it must be
 * idempotent and cheap after the first call, and return a fresh Config each time.
 */
public final class FlashChunkConfigurationLoader implements ConfigurationLoader {
    static final String CHUNK_CACHE_CLASS_KEY = "chunk_cache_class";
    static final String BLOCK = "flash_chunk_cache";
    static final String STOCK_CHUNK_CACHE_CLASS = "org.apache.cassandra.cache.ChunkCache";
    /** Compiled for Java 11: {@code public static void apply(Object chunkCacheClass, Object block, Config config)}. */
    static final String ACTIVATION = "io.flashchunk.cassandra.config.FlashCacheActivation";

    private static final Logger LOG = LoggerFactory.getLogger(FlashChunkConfigurationLoader.class);
    /** The ERROR line of a step aside is written once per JVM, though Cassandra loads the yaml several times. */
    private static final AtomicBoolean steppedAside = new AtomicBoolean();

    @Override
    public Config loadConfig() throws ConfigurationException {
        URL url = configUrl();
        Map<String, Object> yaml = read(url);
        Object chunkCacheClass = yaml.remove(CHUNK_CACHE_CLASS_KEY);
        Object block = yaml.remove(BLOCK);
        Config config = YamlConfigurationLoader.fromMap(yaml, Config.class);
        String javaProblem = RequiredJava.problem();
        if (javaProblem != null) {
            stepAside(chunkCacheClass, block, javaProblem);
        } else {
            activate(chunkCacheClass, block, config);
        }
        return config;
    }

    /** Hands the keys to the Java 11 code; a jar too broken to do that steps aside like an old Java. */
    private static void activate(Object chunkCacheClass, Object block, Config config) {
        try {
            Class.forName(ACTIVATION, true, FlashChunkConfigurationLoader.class.getClassLoader())
                    .getMethod("apply", Object.class, Object.class, Config.class)
                    .invoke(null, chunkCacheClass, block, config);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            stepAside(chunkCacheClass, block, "the flash cache could not start: " + cause);
        } catch (ReflectiveOperationException | LinkageError e) {
            stepAside(chunkCacheClass, block, "the flash cache's classes could not be loaded: " + e);
        }
    }

    /**
     * The flash cache cannot run in this JVM: when the yaml asks for it, that is one ERROR line and
     * Cassandra's own chunk cache, or, with {@code strict: true}, a refusal to start.
     */
    static void stepAside(Object chunkCacheClass, Object block, String problem) {
        if (chunkCacheClass == null || STOCK_CHUNK_CACHE_CLASS.equals(chunkCacheClass)) {
            return; // the flash cache is not asked for: nothing to step aside from
        }
        if (!inCassandraDaemon()) {
            return; // an offline tool (jvm-clients.options): it only needs the yaml without our keys
        }
        if (isStrict(block)) {
            throw new ConfigurationException("flash chunk cache (strict: true): " + problem, false);
        }
        if (steppedAside.compareAndSet(false, true)) {
            LOG.error("flash chunk cache disabled, Cassandra's own chunk cache is used: {}", problem);
        }
    }

    /** Whether Cassandra's server is loading the yaml (not an offline tool); a stack walk Java 8 can do. */
    private static boolean inCassandraDaemon() {
        for (StackTraceElement frame : new Throwable().getStackTrace()) {
            if (frame.getClassName().equals("org.apache.cassandra.service.CassandraDaemon")) {
                return true;
            }
        }
        return false;
    }

    /** Whether the block says {@code strict: true} (as CacheSettings.isStrict, which needs Java 11). */
    static boolean isStrict(Object block) {
        return block instanceof Map && Boolean.TRUE.equals(((Map<?, ?>) block).get("strict"));
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

package io.flashchunk.cassandra.config;

import io.flashchunk.cassandra.agent.RequiredJava;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.ConfigurationLoader;
import org.apache.cassandra.config.YamlConfigurationLoader;
import org.apache.cassandra.exceptions.ConfigurationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.reader.UnicodeReader;

/**
 * Cassandra's configuration loader with the flash cache's settings taken out
 * ({@code -Dcassandra.config.loader=io.flashchunk.cassandra.config.FlashChunkConfigurationLoader}).
 * Cassandra refuses unknown keys in cassandra.yaml, so this reads the file, cuts the text of
 * {@code chunk_cache_class} and the {@code flash_chunk_cache} block out of it and hands the rest, as
 * text, to Cassandra's own loader: every other value is parsed by Cassandra exactly as without the
 * flash cache (no YAML 1.1 retyping of {@code 0123}, {@code on} or {@code 1.10} on the way), and all
 * of its checks still apply. On Java 11 or later it then hands both keys to
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
        String text = readText(url);
        Map<String, Object> yaml = read(text, url);
        Object chunkCacheClass = yaml.get(CHUNK_CACHE_CLASS_KEY);
        Object block = yaml.get(BLOCK);
        Config config = new YamlConfigurationLoader().loadConfig(inMemory(url, withoutCacheKeys(text, url)));
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

    /** The yaml's text, decoded as SnakeYAML decodes Cassandra's bytes (a BOM names UTF-8 or UTF-16). */
    static String readText(URL url) {
        try (InputStream in = url.openStream(); Reader reader = new UnicodeReader(in)) {
            StringBuilder text = new StringBuilder();
            char[] buffer = new char[8192];
            for (int n; (n = reader.read(buffer)) > 0; ) {
                text.append(buffer, 0, n);
            }
            return text.toString();
        } catch (CharacterCodingException | YAMLException e) {
            throw new ConfigurationException("Invalid yaml: " + url + " is not valid UTF-8 (or UTF-16 with a byte order"
                    + " mark): " + e.getMessage());
        } catch (IOException e) {
            throw new ConfigurationException("cannot read " + url + ": " + e.getMessage());
        }
    }

    /** The yaml as Java values (YAML 1.1 types): where the flash cache's two keys are read from. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> read(String text, URL url) {
        try {
            Object root = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
            if (root == null) {
                return new LinkedHashMap<>();
            }
            if (!(root instanceof Map)) {
                throw new ConfigurationException("Invalid yaml: " + url + " must be a map of settings");
            }
            return new LinkedHashMap<>((Map<String, Object>) root);
        } catch (RuntimeException e) {
            if (e instanceof ConfigurationException) {
                throw e;
            }
            throw new ConfigurationException("Invalid yaml: " + url + ": " + e.getMessage());
        }
    }

    /**
     * The yaml's text without the flash cache's top-level entries, every other character as it was. The
     * cut runs from each entry's key to the end of its value, at the positions SnakeYAML's parser
     * reports (code points, hence the code-point array), and keeps the cut lines' line breaks, so that
     * Cassandra's messages name the file's own line numbers. Forms whose extent the parser does not
     * report (a value that is an alias, an explicit "? key") are refused with a message that says so.
     */
    static String withoutCacheKeys(String text, URL url) {
        Node root = new Yaml(new SafeConstructor(new LoaderOptions())).compose(new StringReader(text));
        if (!(root instanceof MappingNode)) {
            return text; // empty, or not a map: Cassandra's own loader says what is wrong
        }
        MappingNode settings = (MappingNode) root;
        List<int[]> cuts = new ArrayList<>();
        for (NodeTuple entry : settings.getValue()) {
            Node key = entry.getKeyNode();
            if (key instanceof ScalarNode && isCacheKey(((ScalarNode) key).getValue())) {
                if (settings.getFlowStyle() == DumperOptions.FlowStyle.FLOW) {
                    throw new ConfigurationException("Invalid yaml: " + url + " is one {...} mapping; the flash cache's "
                            + "settings can only be taken out of key: value lines (write cassandra.yaml in block style)");
                }
                int from = key.getStartMark().getIndex();
                int to = entry.getValueNode().getEndMark().getIndex();
                String before = lineBefore(text, key.getStartMark().getLine(), key.getStartMark().getColumn());
                if (to < from || before.trim().startsWith("?")) {
                    throw new ConfigurationException("Invalid yaml: " + url + " line " + (key.getStartMark().getLine() + 1)
                            + ": write " + ((ScalarNode) key).getValue() + " as a plain key: value entry (not an alias"
                            + " or an explicit ? key), so that the flash cache's settings can be taken out of the file");
                }
                cuts.add(new int[] {from, to});
            }
        }
        if (cuts.isEmpty()) {
            return text;
        }
        int[] codePoints = text.codePoints().toArray();
        StringBuilder kept = new StringBuilder(text.length());
        int from = 0;
        for (int[] cut : cuts) {
            kept.append(new String(codePoints, from, cut[0] - from));
            for (int i = cut[0]; i < cut[1]; i++) {
                if (codePoints[i] == '\n' || codePoints[i] == '\r') {
                    kept.appendCodePoint(codePoints[i]);
                }
            }
            from = cut[1];
        }
        return kept.append(new String(codePoints, from, codePoints.length - from)).toString();
    }

    /** The text of line {@code line} (0-based) before column {@code column}: what precedes a key on it. */
    private static String lineBefore(String text, int line, int column) {
        String[] lines = text.split("\r\n|\r|\n", -1);
        if (line >= lines.length) {
            return "";
        }
        int[] codePoints = lines[line].codePoints().limit(column).toArray();
        return new String(codePoints, 0, codePoints.length);
    }

    private static boolean isCacheKey(String key) {
        return CHUNK_CACHE_CLASS_KEY.equals(key) || BLOCK.equals(key);
    }

    /** A URL that reads {@code text} from memory (as UTF-8) and names {@code origin} wherever it is shown. */
    static URL inMemory(URL origin, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        URLStreamHandler handler = new URLStreamHandler() {
            @Override
            protected URLConnection openConnection(URL url) {
                return new URLConnection(url) {
                    @Override
                    public void connect() {
                    }

                    @Override
                    public InputStream getInputStream() {
                        return new ByteArrayInputStream(bytes);
                    }
                };
            }
        };
        try {
            return new URL(origin.getProtocol(), origin.getHost(), origin.getPort(), origin.getFile(), handler);
        } catch (MalformedURLException e) {
            throw new ConfigurationException("cannot name " + origin + " again: " + e.getMessage());
        }
    }
}

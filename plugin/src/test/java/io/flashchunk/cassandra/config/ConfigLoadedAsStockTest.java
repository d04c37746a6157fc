package io.flashchunk.cassandra.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.YamlConfigurationLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loader takes the flash cache's two keys out of cassandra.yaml and changes nothing else: Cassandra's
 * Config built through it equals, field by field, the one Cassandra's own loader builds from the same
 * yaml without those keys, on a yaml full of YAML 1.1 traps for string settings (an octal-looking
 * 0123, a float-looking 1.10, on, a date, a hex number, underscores), with the flash cache's entries
 * before, between and after other settings and a comment in characters beyond the BMP before them.
 */
class ConfigLoadedAsStockTest {
    private static final String STOCK_SETTINGS = String.join("\n",
            "cluster_name: 0123",
            "initial_token: 1.10",
            "saved_caches_directory: 2001-12-14",
            "hints_directory: 0x1F",
            "allocate_tokens_for_keyspace: 1_000",
            "num_tokens: 16",
            "client_encryption_options:",
            "  enabled: false",
            "  keystore_password: on",
            "  truststore_password: 0777",
            "seed_provider:",
            "  - class_name: org.apache.cassandra.locator.SimpleSeedProvider",
            "    parameters:",
            "      - seeds: \"127.0.0.1:7000\"",
            "file_cache_size: 256MiB",
            "commitlog_sync: periodic",
            "commitlog_sync_period: 10000ms",
            "");

    /** chunk_cache_class names Cassandra's own cache: the test loads the yaml, it starts no flash cache. */
    private static final String CACHE_CLASS = "chunk_cache_class: org.apache.cassandra.cache.ChunkCache # stock\n";
    private static final String BLOCK = String.join("\n",
            "# the flash cache \u00e9\ud83d\ude80 (a comment of code points beyond the BMP)",
            "flash_chunk_cache:",
            "  devices:",
            "    - path: /dev/nvme1n1",
            "      capacity: 64GiB",
            "  strict: false",
            "");

    @TempDir
    Path dir;

    @Test
    void everyOtherSettingIsWhatCassandrasOwnLoaderMakesOfIt() throws Exception {
        String[] stockLines = STOCK_SETTINGS.split("\n", -1);
        String middle = String.join("\n", java.util.Arrays.copyOfRange(stockLines, 0, 6)) + "\n";
        String rest = String.join("\n", java.util.Arrays.copyOfRange(stockLines, 6, stockLines.length));
        String withCache = CACHE_CLASS + middle + BLOCK + rest + CACHE_CLASS.replace(" # stock", "");

        Config stock = new YamlConfigurationLoader().loadConfig(write("stock.yaml", STOCK_SETTINGS));
        Config ours = loadThroughOurLoader(write("cassandra.yaml", withCache));

        assertEquals("0123", ours.cluster_name);
        assertEquals("1.10", ours.initial_token);
        assertEquals("2001-12-14", ours.saved_caches_directory);
        assertEquals("on", ours.client_encryption_options.keystore_password);
        assertSameFields(stock, ours, "Config");
    }

    @Test
    void theCutLeavesEveryOtherCharacterAsItWas() throws Exception {
        String text = "a: 1\n" + CACHE_CLASS + "b: 0123\n" + BLOCK + "c: on\n";
        String kept = FlashChunkConfigurationLoader.withoutCacheKeys(text, new URL("file:///x.yaml"));
        // the block's five line breaks stay, so that the lines after it keep their numbers
        assertEquals("a: 1\n\nb: 0123\n# the flash cache \u00e9\ud83d\ude80 (a comment of code points beyond the BMP)\n\n\n\n\n\nc: on\n",
                kept.replace(" # stock", ""));
        assertTrue(FlashChunkConfigurationLoader.withoutCacheKeys("a: 1\n", new URL("file:///x.yaml")).equals("a: 1\n"));
    }

    @Test
    void theCutKeepsLineNumbersAndRefusesWhatItCannotCut() throws Exception {
        URL url = new URL("file:///x.yaml");
        String kept = FlashChunkConfigurationLoader.withoutCacheKeys("a: 1\n" + BLOCK + "num_tokens: abc\n", url);
        assertEquals(kept.split("\n", -1).length, ("a: 1\n" + BLOCK + "num_tokens: abc\n").split("\n", -1).length, kept);
        assertTrue(kept.endsWith("num_tokens: abc\n"), kept);
        String alias = assertThrows(org.apache.cassandra.exceptions.ConfigurationException.class,
                () -> FlashChunkConfigurationLoader.withoutCacheKeys("commitlog_directory: &c /x\nchunk_cache_class: *c\n", url))
                .getMessage();
        assertTrue(alias.contains("line 2: write chunk_cache_class as a plain key: value entry"), alias);
        String explicit = assertThrows(org.apache.cassandra.exceptions.ConfigurationException.class,
                () -> FlashChunkConfigurationLoader.withoutCacheKeys("a: 1\n? flash_chunk_cache\n: {}\n", url)).getMessage();
        assertTrue(explicit.contains("line 2: write flash_chunk_cache as a plain key: value entry"), explicit);
    }

    private URL write(String name, String text) throws Exception {
        Path file = dir.resolve(name);
        Files.write(file, text.getBytes(StandardCharsets.UTF_8));
        return file.toUri().toURL();
    }

    private static Config loadThroughOurLoader(URL yaml) {
        String before = System.getProperty("cassandra.config");
        System.setProperty("cassandra.config", yaml.toString());
        try {
            return new FlashChunkConfigurationLoader().loadConfig();
        } finally {
            if (before == null) {
                System.clearProperty("cassandra.config");
            } else {
                System.setProperty("cassandra.config", before);
            }
        }
    }

    /** Cassandra's own types compared field by field (few define equals); everything else by equals. */
    private static void assertSameFields(Object expected, Object actual, String path) throws IllegalAccessException {
        if (expected == null || actual == null) {
            assertEquals(expected, actual, path);
            return;
        }
        assertEquals(expected.getClass(), actual.getClass(), path);
        Class<?> type = expected.getClass();
        if (type.isArray()) {
            assertTrue(java.util.Objects.deepEquals(expected, actual), path);
            return;
        }
        if (!type.getName().startsWith("org.apache.cassandra.") || expected instanceof Enum) {
            assertEquals(expected, actual, path);
            return;
        }
        for (Class<?> c = type; c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                field.setAccessible(true);
                assertSameFields(field.get(expected), field.get(actual), path + "." + field.getName());
            }
        }
    }
}

package io.flashchunk.cassandra.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.apache.cassandra.exceptions.ConfigurationException;
import org.junit.jupiter.api.Test;

/**
 * Where the flash cache cannot run (an old Java), the loader steps aside: a refusal to start in strict
 * mode, otherwise nothing thrown (the one ERROR line and the node on Java 11: Java11NodeIT).
 */
class FlashChunkConfigurationLoaderTest {
    private static final String JAVA_11 = "this JVM is Java 11.0.13; the flash cache needs Java 17 or later";

    @Test
    void strictModeRefusesWithTheProblem() {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> FlashChunkConfigurationLoader
                .stepAside("io.flashchunk.cassandra.CassandraFlashCache", Map.of("strict", true), JAVA_11));
        assertEquals("flash chunk cache (strict: true): " + JAVA_11, e.getMessage());
    }

    @Test
    void otherwiseTheNodeStartsStock() {
        FlashChunkConfigurationLoader.stepAside("io.flashchunk.cassandra.CassandraFlashCache", Map.of("strict", false),
                JAVA_11);
        FlashChunkConfigurationLoader.stepAside("io.flashchunk.cassandra.CassandraFlashCache", null, JAVA_11);
        // not asked for: nothing to refuse, even in strict mode
        FlashChunkConfigurationLoader.stepAside(null, Map.of("strict", true), JAVA_11);
        FlashChunkConfigurationLoader.stepAside("org.apache.cassandra.cache.ChunkCache", Map.of("strict", true), JAVA_11);
    }
}

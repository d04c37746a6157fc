package io.flashchunk.cassandra.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Where the flash cache cannot run (Java 8), the loader steps aside. In Cassandra's server that is one
 * ERROR line and the node on Cassandra's own chunk cache, or a refusal to start under
 * {@code strict: true}. An offline tool that reads the yaml through the loader (jvm-clients.options)
 * is never refused, strict or not: it only needs the yaml without the cache's keys.
 */
class FlashChunkConfigurationLoaderTest {
    private static final String JAVA_8 = "this JVM is Java 1.8.0_392; the flash cache needs Java 11 or later";

    @Test
    void anOfflineToolIsNeverRefusedStrictOrNot() {
        assertDoesNotThrow(() -> FlashChunkConfigurationLoader.stepAside("io.flashchunk.cassandra.CassandraFlashCache",
                Map.of("strict", true), JAVA_8));
        assertDoesNotThrow(() -> FlashChunkConfigurationLoader.stepAside("io.flashchunk.cassandra.CassandraFlashCache",
                null, JAVA_8));
    }
}

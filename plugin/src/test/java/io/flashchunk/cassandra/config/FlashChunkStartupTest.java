package io.flashchunk.cassandra.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cassandra.CassandraFlashCache;
import java.util.List;
import java.util.Map;
import org.apache.cassandra.exceptions.ConfigurationException;
import org.junit.jupiter.api.Test;

/** Whatever stops the cache from starting, Errors included, the node starts without it unless strict. */
class FlashChunkStartupTest {
    private static Map<String, Object> block(boolean strict) {
        return Map.of("devices", List.of(Map.of("path", "/dev/flash0")), "strict", strict);
    }

    @Test
    void anErrorWhileStartingLeavesTheNodeOnItsOwnCache() {
        for (Throwable failure : new Throwable[] {new OutOfMemoryError("Requested array size exceeds VM limit"),
                new UnsatisfiedLinkError("libcflsh_block.so: cannot open shared object file"),
                new IllegalStateException("file ids are exhausted")}) {
            assertFalse(FlashChunkStartup.decide(CassandraFlashCache.CHUNK_CACHE_CLASS, block(false), true,
                    config -> {
                        if (failure instanceof Error error) {
                            throw error;
                        }
                        throw (RuntimeException) failure;
                    }), failure.toString());
        }
    }

    @Test
    void strictModeRefusesToStartAndSaysWhy() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> FlashChunkStartup.decide(CassandraFlashCache.CHUNK_CACHE_CLASS, block(true), true, config -> {
                    throw new OutOfMemoryError("Requested array size exceeds VM limit");
                }));
        assertTrue(e.getMessage().contains("the cache could not start: java.lang.OutOfMemoryError: Requested array size"),
                e.getMessage());
    }

    @Test
    void aCacheThatStartsRuns() {
        boolean[] started = {false};
        assertTrue(FlashChunkStartup.decide(CassandraFlashCache.CHUNK_CACHE_CLASS, block(false), true,
                config -> started[0] = config.devices().size() == 1));
        assertTrue(started[0]);
    }
}

package io.flashchunk.cassandra.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.CacheConfig;
import io.flashchunk.cassandra.CassandraFlashCache;
import io.flashchunk.cassandra.warmup.ReadPathWarmUp;
import java.util.List;
import java.util.Map;
import org.apache.cassandra.exceptions.ConfigurationException;
import org.junit.jupiter.api.Test;

/**
 * Whatever stops the cache from starting, Errors included, the node starts without it unless strict;
 * and the cache starts only once Cassandra's ChunkCache is known to carry the agent's hooks.
 */
class FlashChunkStartupTest {
    /** An agent whose hooks took. */
    private static final FlashChunkStartup.Agent HOOKED = new FlashChunkStartup.Agent(true, () -> null, () -> null);

    private static Map<String, Object> block(boolean strict) {
        return Map.of("devices", List.of(Map.of("path", "/dev/flash0")), "strict", strict);
    }

    /** A starter that fails the test: the cache must not be started. */
    private static void mustNotStart(CacheConfig config) {
        throw new AssertionError("the cache was started");
    }

    @Test
    void hooksThatDidNotTakeLeaveTheNodeOnItsOwnCacheAndTheCacheUnstarted() {
        FlashChunkStartup.Agent unhooked = new FlashChunkStartup.Agent(true,
                () -> "org.apache.cassandra.cache.ChunkCache of this Cassandra version has no single method close()",
                () -> null);
        assertFalse(FlashChunkStartup.decide(CassandraFlashCache.CHUNK_CACHE_CLASS, block(false), unhooked,
                FlashChunkStartupTest::mustNotStart));
    }

    @Test
    void hooksThatDidNotTakeRefuseToStartInStrictMode() {
        FlashChunkStartup.Agent unhooked = new FlashChunkStartup.Agent(true,
                () -> "org.apache.cassandra.cache.ChunkCache of this Cassandra version has no single method close()",
                () -> null);
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> FlashChunkStartup.decide(CassandraFlashCache.CHUNK_CACHE_CLASS, block(true), unhooked,
                        FlashChunkStartupTest::mustNotStart));
        assertEquals("flash chunk cache (strict: true): org.apache.cassandra.cache.ChunkCache of this Cassandra "
                + "version has no single method close()", e.getMessage());
    }

    /** premain recorded an error (FlashChunkAgentTest: how): it is named, and the cache is not started. */
    @Test
    void anErrorInPremainIsNamedAndTheCacheIsNotStarted() {
        String premainProblem = "the java agent could not install its hooks: java.lang.UnsupportedOperationException: "
                + "no transformers in this JVM";
        FlashChunkStartup.Agent failed = new FlashChunkStartup.Agent(true, () -> premainProblem, () -> null);
        assertFalse(FlashChunkStartup.decide(CassandraFlashCache.CHUNK_CACHE_CLASS, block(false), failed,
                FlashChunkStartupTest::mustNotStart));
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> FlashChunkStartup.decide(CassandraFlashCache.CHUNK_CACHE_CLASS, block(true), failed,
                        FlashChunkStartupTest::mustNotStart));
        assertEquals("flash chunk cache (strict: true): " + premainProblem, e.getMessage());
    }

    @Test
    void aHookCheckThatThrowsIsARefusalToo() {
        FlashChunkStartup.Agent broken = new FlashChunkStartup.Agent(true, () -> {
            throw new NoClassDefFoundError("org/apache/cassandra/cache/ChunkCache");
        }, () -> null);
        assertFalse(FlashChunkStartup.decide(CassandraFlashCache.CHUNK_CACHE_CLASS, block(false), broken,
                FlashChunkStartupTest::mustNotStart));
    }

    @Test
    void anErrorWhileStartingLeavesTheNodeOnItsOwnCache() {
        for (Throwable failure : new Throwable[] {new OutOfMemoryError("Requested array size exceeds VM limit"),
                new UnsatisfiedLinkError("libcflsh_block.so: cannot open shared object file"),
                new IllegalStateException("file ids are exhausted")}) {
            assertFalse(FlashChunkStartup.decide(CassandraFlashCache.CHUNK_CACHE_CLASS, block(false), HOOKED,
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
                () -> FlashChunkStartup.decide(CassandraFlashCache.CHUNK_CACHE_CLASS, block(true), HOOKED, config -> {
                    throw new OutOfMemoryError("Requested array size exceeds VM limit");
                }));
        assertTrue(e.getMessage().contains("the cache could not start: java.lang.OutOfMemoryError: Requested array size"),
                e.getMessage());
    }

    @Test
    void aCacheThatStartsRuns() {
        boolean[] started = {false};
        assertTrue(FlashChunkStartup.decide(CassandraFlashCache.CHUNK_CACHE_CLASS, block(false), HOOKED,
                config -> started[0] = config.devices().size() == 1));
        assertTrue(started[0]);
    }

    @Test
    void aWarmUpBeforeClientsIsSetOnlyWhereTheDaemonRunsItAndItsAbsenceStopsNothing() {
        Map<String, Object> block = Map.of("devices", List.of(Map.of("path", "/dev/flash0")),
                "warm_up_before_clients", "30s");
        try {
            assertTrue(FlashChunkStartup.decide(CassandraFlashCache.CHUNK_CACHE_CLASS, block, HOOKED, config -> { }));
            assertEquals(30_000, ReadPathWarmUp.configuredMillis());
            FlashChunkStartup.Agent noDaemonHook = new FlashChunkStartup.Agent(true, () -> null,
                    () -> "org.apache.cassandra.service.CassandraDaemon of this Cassandra version has no single "
                            + "startClientTransports()");
            ReadPathWarmUp.configure(0);
            assertTrue(FlashChunkStartup.decide(CassandraFlashCache.CHUNK_CACHE_CLASS, block, noDaemonHook, config -> { }));
            assertEquals(0, ReadPathWarmUp.configuredMillis());
        } finally {
            ReadPathWarmUp.configure(0);
        }
    }
}

package io.flashchunk.cassandra.config;

import io.flashchunk.cache.CacheConfig;
import io.flashchunk.cassandra.CassandraFlashCache;
import io.flashchunk.cassandra.agent.ChunkCacheRewriter;
import io.flashchunk.cassandra.agent.FlashChunkAgent;
import io.flashchunk.cassandra.agent.HookCheck;
import io.flashchunk.cassandra.warmup.ReadPathWarmUp;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.cassandra.exceptions.ConfigurationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, once per JVM, whether the flash cache runs, from {@code chunk_cache_class}, the
 * {@code flash_chunk_cache} block and what the java agent did: the cache starts only once Cassandra's
 * ChunkCache is known to carry the agent's hooks. Every problem is one log line naming it; the node then
 * runs with Cassandra's own chunk cache, unless the block says {@code strict: true}, in which case
 * Cassandra refuses to start with the same message.
 */
final class FlashChunkStartup {
    static final String CHUNK_CACHE_CLASS_KEY = "chunk_cache_class";
    static final String STOCK_CHUNK_CACHE_CLASS = "org.apache.cassandra.cache.ChunkCache";

    private static final Logger LOG = LoggerFactory.getLogger(FlashChunkStartup.class);

    private static Boolean decided;

    private FlashChunkStartup() {
    }

    /** Starts the cache for a configuration; {@link CassandraFlashCache#start} outside tests. */
    interface Starter {
        void start(CacheConfig config) throws Exception;
    }

    /**
     * The java agent as the decision sees it.
     */
    static final class Agent {
        private final boolean installed;
        private final Supplier<String> hooksProblem;
        private final Supplier<String> clientStartProblem;

        /**
         * @param installed    whether the JVM runs with {@code -javaagent} (premain ran)
         * @param hooksProblem asked only when the flash cache is about to start: null when Cassandra's
         *     ChunkCache carries the hooks, else what stands in the way
         * @param clientStartProblem asked only when a warm-up before clients is set: null when
         *     CassandraDaemon runs it before starting its clients, else why it cannot
         */
        Agent(boolean installed, Supplier<String> hooksProblem, Supplier<String> clientStartProblem) {
            this.installed = installed;
            this.hooksProblem = hooksProblem;
            this.clientStartProblem = clientStartProblem;
        }

        public boolean installed() {
            return installed;
        }

        public Supplier<String> hooksProblem() {
            return hooksProblem;
        }

        public Supplier<String> clientStartProblem() {
            return clientStartProblem;
        }

        /** This JVM's agent; its hook check loads ChunkCache, uninitialised, if Cassandra has not yet. */
        static Agent ofThisJvm() {
            return new Agent(FlashChunkAgent.isInstalled(), () -> HookCheck.problem(FlashChunkStartup.class.getClassLoader()),
                    ChunkCacheRewriter::clientStartProblem);
        }

        @Override
        public String toString() {
            return "Agent[installed=" + installed + ", hooksProblem=" + hooksProblem + ", clientStartProblem="
                    + clientStartProblem + "]";
        }
    }

    /** True when the flash cache runs in this JVM; the first call decides (and starts it). */
    static synchronized boolean startOnce(Object chunkCacheClass, Object block) {
        if (decided == null) {
            decided = decide(chunkCacheClass, block, Agent.ofThisJvm(), CassandraFlashCache::start);
        }
        return decided;
    }

    /**
     * Whether the cache runs. Whatever goes wrong while it starts, an Error included (a device
     * library that will not load, memory a recovery could not get), is a refusal: logged, and the
     * node runs with Cassandra's own chunk cache unless strict mode says otherwise. So is an agent
     * whose hooks did not take (an error in premain, a ChunkCache it could not rewrite): the cache is
     * then not started at all.
     */
    static boolean decide(Object chunkCacheClass, Object block, Agent agent, Starter starter) {
        boolean strict = CacheSettings.isStrict(block);
        if (chunkCacheClass == null || STOCK_CHUNK_CACHE_CLASS.equals(chunkCacheClass)) {
            if (block != null) {
                LOG.warn("{} is set but {} does not name {}: the flash cache is off", CacheSettings.BLOCK,
                        CHUNK_CACHE_CLASS_KEY, CassandraFlashCache.CHUNK_CACHE_CLASS);
            }
            return false;
        }
        if (!CassandraFlashCache.CHUNK_CACHE_CLASS.equals(chunkCacheClass)) {
            return refuse(strict, CHUNK_CACHE_CLASS_KEY + ": unknown chunk cache class '" + chunkCacheClass
                    + "'; expected " + CassandraFlashCache.CHUNK_CACHE_CLASS + " or " + STOCK_CHUNK_CACHE_CLASS);
        }
        if (!agent.installed()) {
            if (isCassandraDaemon()) {
                return refuse(strict, CHUNK_CACHE_CLASS_KEY + " names the flash cache, but this JVM has no "
                        + "-javaagent:<path>/flashchunk-cassandra.jar");
            }
            return false; // an offline tool: it only needs the yaml without our keys
        }
        CacheConfig config;
        try {
            config = CacheSettings.parse(block);
        } catch (IllegalArgumentException e) {
            return refuse(strict, e.getMessage());
        }
        String hooksProblem;
        try {
            hooksProblem = agent.hooksProblem().get();
        } catch (Throwable e) {
            hooksProblem = "the java agent's hooks could not be checked: " + e;
        }
        if (hooksProblem != null) {
            return refuse(config.strict(), hooksProblem);
        }
        try {
            CassandraFlashCache.storeChunks(ChunksOnFlash.parse((Map<?, ?>) block)); // checked by parse above
            starter.start(config);
        } catch (Throwable e) {
            return refuse(config.strict(), CacheSettings.BLOCK + ": the cache could not start: "
                    + (e instanceof Exception && e.getMessage() != null ? e.getMessage() : e.toString()));
        }
        long warmUpMillis = CacheSettings.warmUpBeforeClientsMillis((Map<?, ?>) block);
        String warmUpProblem;
        try {
            warmUpProblem = warmUpMillis > 0 ? agent.clientStartProblem().get() : null;
        } catch (Throwable e) {
            warmUpProblem = "the java agent's hook on the daemon could not be checked: " + e;
        }
        if (warmUpProblem != null) {
            LOG.warn("{}.warm_up_before_clients is set, but the node will start its clients without it: {}",
                    CacheSettings.BLOCK, warmUpProblem);
        } else {
            ReadPathWarmUp.configure(warmUpMillis);
        }
        return true;
    }

    private static boolean refuse(boolean strict, String problem) {
        if (strict) {
            throw new ConfigurationException("flash chunk cache (strict: true): " + problem, false);
        }
        LOG.error("flash chunk cache disabled, Cassandra's own chunk cache is used: {}", problem);
        return false;
    }

    private static boolean isCassandraDaemon() {
        return StackWalker.getInstance().walk(frames -> frames.anyMatch(
                frame -> frame.getClassName().equals("org.apache.cassandra.service.CassandraDaemon")));
    }
}

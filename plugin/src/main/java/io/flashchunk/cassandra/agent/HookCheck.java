package io.flashchunk.cassandra.agent;

import java.util.List;

/**
 * Whether Cassandra's {@code ChunkCache} carries the agent's hooks, asked before the flash cache
 * starts: a cache started without them would serve nothing. The class is loaded here if Cassandra has
 * not loaded it yet, without initialising it: defining it runs the agent's transformer, while its
 * static initialiser, which needs Cassandra's configuration, waits for Cassandra's own first use.
 */
public final class HookCheck {
    private HookCheck() {
    }

    /** Null when ChunkCache carries every hook, else what stands in the way; loads ChunkCache through {@code loader}. */
    public static String problem(ClassLoader loader) {
        String premain = FlashChunkAgent.problem();
        if (premain != null) {
            return premain;
        }
        try {
            Class.forName(ChunkCacheRewriter.CHUNK_CACHE, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return "Cassandra's " + ChunkCacheRewriter.CHUNK_CACHE + " could not be loaded to check the agent's hooks: " + e;
        }
        return problem(ChunkCacheRewriter.chunkCacheInstrumented(), ChunkCacheRewriter.errors());
    }

    /** The problem, given whether ChunkCache was rewritten and what the rewriter recorded. */
    static String problem(boolean instrumented, List<String> rewriteErrors) {
        if (!rewriteErrors.isEmpty()) {
            return String.join("; ", rewriteErrors);
        }
        if (!instrumented) {
            return "Cassandra's " + ChunkCacheRewriter.CHUNK_CACHE + " is loaded without the java agent's hooks, so the "
                    + "flash cache would serve nothing";
        }
        return null;
    }
}

package io.flashchunk.cassandra.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.pool.TypePool;
import org.junit.jupiter.api.Test;

/** The agent rewrites ChunkCache only when every hook finds its method, and says what it missed. */
class ChunkCacheRewriterTest {

    /** A ChunkCache of some other Cassandra: no invalidatePosition, and capacity() in other units. */
    @SuppressWarnings("unused")
    static final class OtherChunkCache {
        public org.apache.cassandra.io.util.RebuffererFactory wrap(org.apache.cassandra.io.util.ChunkReader reader) {
            return null;
        }

        public void invalidateFile(String path) {
        }

        public int capacity() {
            return 0;
        }

        public int size() {
            return 0;
        }

        public long weightedSize() {
            return 0;
        }

        public void close() {
        }
    }

    @Test
    void cassandra509sChunkCacheHasEveryHook() {
        TypeDescription chunkCache = TypePool.Default.ofSystemLoader().describe(ChunkCacheRewriter.CHUNK_CACHE).resolve();
        assertEquals(List.of(), ChunkCacheRewriter.missingHooks(chunkCache));
    }

    @Test
    void aChunkCacheWithoutSomeHooksIsNamedMethodByMethod() {
        List<String> missing = ChunkCacheRewriter.missingHooks(TypeDescription.ForLoadedType.of(OtherChunkCache.class));
        assertEquals(List.of("invalidatePosition(FileHandle, long)", "long capacity()"), missing);
    }

    @Test
    void reportedProblemsAreKept() {
        ChunkCacheRewriter.report("a problem for the test");
        assertTrue(ChunkCacheRewriter.errors().contains("a problem for the test"), ChunkCacheRewriter.errors().toString());
    }
}

package io.flashchunk.cassandra.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.util.List;
import org.junit.jupiter.api.Test;
import sun.misc.Unsafe;

/** The check before the cache starts: loads ChunkCache without initialising it and says whether the hooks took. */
class HookCheckTest {

    /** This test JVM has no agent: Cassandra's real ChunkCache loads unhooked, and its static initialiser does not run. */
    @Test
    void chunkCacheLoadedWithoutTheAgentIsAProblemAndStaysUninitialised() throws Exception {
        String problem = HookCheck.problem(getClass().getClassLoader());
        assertNotNull(problem);
        assertFalse(problem.contains("could not be loaded"), problem);
        Class<?> chunkCache = Class.forName(ChunkCacheRewriter.CHUNK_CACHE, false, getClass().getClassLoader());
        Field theUnsafe = Unsafe.class.getDeclaredField("theUnsafe");
        theUnsafe.setAccessible(true);
        assertTrue(((Unsafe) theUnsafe.get(null)).shouldBeInitialized(chunkCache),
                "the check ran ChunkCache's static initialiser, which needs Cassandra's configuration");
    }

    @Test
    void hooksThatTookAreNoProblem() {
        assertNull(HookCheck.problem(true, List.of()));
    }

    @Test
    void whatTheRewriterRecordedIsTheProblem() {
        assertEquals("rewriting org.apache.cassandra.cache.ChunkCache failed: x; a second problem",
                HookCheck.problem(false, List.of("rewriting org.apache.cassandra.cache.ChunkCache failed: x",
                        "a second problem")));
    }

    @Test
    void aChunkCacheLoadedWithoutHooksIsAProblemEvenWithNothingRecorded() {
        assertEquals("Cassandra's org.apache.cassandra.cache.ChunkCache is loaded without the java agent's hooks, so "
                + "the flash cache would serve nothing", HookCheck.problem(false, List.of()));
    }
}

package io.flashchunk.checkpoint.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class StatsCommandTest {

    @Test
    void countsEntriesBlocksFilesAndChunkSizes() throws Exception {
        TestCache cache = TestCache.standard(1);

        JsonNode stats = JsonRun.of(0, cache.args("stats"));

        JsonNode space = stats.get("spaces").get(0);
        assertEquals(0, space.get("space").intValue());
        assertEquals(TestCache.STANDARD_ENTRIES, space.get("entries").longValue());
        assertEquals(TestCache.STANDARD_USED_BLOCKS, space.get("usedBlocks").longValue());
        assertEquals(TestCache.STANDARD_BYTES, space.get("bytes").longValue());
        long dataBlocks = space.get("dataBlocks").longValue();
        assertTrue(dataBlocks > 3900 && dataBlocks < 4096, space.toString());
        assertEquals(100.0 * TestCache.STANDARD_USED_BLOCKS / dataBlocks, space.get("percentUsed").doubleValue(), 1e-4);
        assertEquals("A", space.get("area").textValue());
        assertEquals(1, space.get("sequence").longValue());
        assertTrue(space.get("note").isNull());

        JsonNode files = stats.get("files");
        assertEquals(2, files.size());
        assertTrue(files.get(0).get("path").textValue().endsWith("nb-2-big-Data.db"), "most entries first");
        assertEquals(4, files.get(0).get("entries").longValue());
        assertEquals(4096 + 10000 + 65536 + 20000, files.get(0).get("bytes").longValue());
        assertTrue(files.get(1).get("path").textValue().endsWith("nb-1-big-Data.db"));
        assertEquals(3, files.get(1).get("entries").longValue());
        assertEquals(3 * TestCache.CHUNK, files.get(1).get("bytes").longValue());

        JsonNode sizes = stats.get("chunkSizes");
        assertEquals(5, sizes.size());
        String[] runs = {"4K", "8K", "16K", "32K", "64K"};
        long[] chunks = {1, 0, 4, 1, 1};
        long[] shortChunks = {0, 0, 1, 1, 0};
        for (int i = 0; i < 5; i++) {
            assertEquals(runs[i], sizes.get(i).get("run").textValue());
            assertEquals(1 << i, sizes.get(i).get("runBlocks").intValue());
            assertEquals(chunks[i], sizes.get(i).get("chunks").longValue(), runs[i]);
            assertEquals(shortChunks[i], sizes.get(i).get("shortChunks").longValue(), runs[i]);
        }
        assertEquals(2, stats.get("total").get("shortChunks").longValue());
    }

    @Test
    void totalsAddUpOverTwoSpaces() throws Exception {
        TestCache cache = TestCache.standard(2);

        JsonNode stats = JsonRun.of(0, cache.args("stats"));

        JsonNode spaces = stats.get("spaces");
        assertEquals(2, spaces.size());
        long entries = 0;
        long used = 0;
        long data = 0;
        for (int i = 0; i < 2; i++) {
            assertEquals(i, spaces.get(i).get("space").intValue());
            assertTrue(spaces.get(i).get("entries").longValue() > 0, stats.toString());
            entries += spaces.get(i).get("entries").longValue();
            used += spaces.get(i).get("usedBlocks").longValue();
            data += spaces.get(i).get("dataBlocks").longValue();
        }
        assertEquals(TestCache.STANDARD_ENTRIES, entries);
        assertEquals(TestCache.STANDARD_USED_BLOCKS, used);
        JsonNode total = stats.get("total");
        assertEquals(entries, total.get("entries").longValue());
        assertEquals(used, total.get("usedBlocks").longValue());
        assertEquals(data, total.get("dataBlocks").longValue());
        assertEquals(TestCache.STANDARD_BYTES, total.get("bytes").longValue());
        assertEquals(2, stats.get("files").size(), "a file's chunks on both spaces count once per file");
    }

    @Test
    void humanOutputShowsSpacesFilesAndHistogram() throws Exception {
        TestCache cache = TestCache.standard(1);

        CommandRun run = CommandRun.of(cache.args("stats"));

        assertEquals(0, run.exitCode(), run.err());
        String out = run.out();
        assertTrue(out.matches("(?s).*used-blocks: +41 \\(\\d+\\.\\d\\d%\\).*"), out);
        assertTrue(out.matches("(?s).*entries: +7\n.*"), out);
        assertTrue(out.matches("(?s).*\n +4 +99632 +\\S+nb-2-big-Data.db\n +3 +49152 +\\S+nb-1-big-Data.db\n.*"), out);
        assertTrue(out.matches("(?s).*\n +16K +4 +1 +59152\n.*"), out);
        assertTrue(out.matches("(?s).*\n +64K +1 +0 +65536\n.*"), out);
    }

    @Test
    void aSpaceWithoutCheckpointCountsNothingAndSaysWhy() throws Exception {
        TestCache cache = new TestCache(1);

        JsonNode space = JsonRun.of(0, cache.args("stats")).get("spaces").get(0);

        assertTrue(space.get("space").isNull());
        assertEquals(0, space.get("entries").longValue());
        assertTrue(space.get("note").textValue().contains("blank superblock"), space.toString());
    }
}

package io.flashchunk.checkpoint.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class StatsCommandTest {

    @Test
    void countsSegmentsEntriesAndFiles() throws Exception {
        TestCache cache = TestCache.standard(1);
        JsonNode superblock = JsonRun.of(0, cache.args("info")).get("devices").get(0).get("superblock");

        JsonNode stats = JsonRun.of(0, cache.args("stats"));

        assertEquals("compact", stats.get("format").textValue());
        assertEquals(1, stats.get("spaces").size());
        JsonNode space = stats.get("spaces").get(0);
        assertEquals(0, space.get("space").intValue());
        assertEquals(cache.devices.get(0).toString(), space.get("device").textValue());
        assertEquals(superblock.get("segments").longValue(), space.get("segments").longValue());
        assertEquals(1, space.get("durableSegments").longValue(), "seven chunks fit one sealed segment");
        assertEquals(TestCache.STANDARD_ENTRIES, space.get("entries").longValue());
        assertEquals(TestCache.STANDARD_BYTES, space.get("chunkBytes").longValue());

        JsonNode files = stats.get("files");
        assertEquals(2, files.size());
        assertTrue(files.get(0).get("file").textValue().endsWith("nb-2-big-Data.db"), "most entries first");
        assertEquals(4, files.get(0).get("entries").longValue());
        assertEquals(4096 + 10000 + 65536 + 20000, files.get(0).get("bytes").longValue());
        assertTrue(files.get(1).get("file").textValue().endsWith("nb-1-big-Data.db"));
        assertEquals(3, files.get(1).get("entries").longValue());
        assertEquals(3 * TestCache.CHUNK, files.get(1).get("bytes").longValue());
    }

    @Test
    void spacesAddUpAndAFileOnBothCountsOnce() throws Exception {
        TestCache cache = TestCache.standardOnTwoSpaces();

        JsonNode stats = JsonRun.of(0, cache.args("stats"));

        JsonNode spaces = stats.get("spaces");
        assertEquals(2, spaces.size());
        long entries = 0;
        long bytes = 0;
        for (int i = 0; i < 2; i++) {
            assertEquals(i, spaces.get(i).get("space").intValue());
            assertEquals(cache.devices.get(i).toString(), spaces.get(i).get("device").textValue());
            assertTrue(spaces.get(i).get("entries").longValue() > 0, stats.toString());
            assertEquals(1, spaces.get(i).get("durableSegments").longValue(), "one life's segment each: " + stats);
            entries += spaces.get(i).get("entries").longValue();
            bytes += spaces.get(i).get("chunkBytes").longValue();
        }
        assertEquals(TestCache.STANDARD_ENTRIES + 1, entries);
        assertEquals(TestCache.STANDARD_BYTES + TestCache.CHUNK, bytes);
        JsonNode files = stats.get("files");
        assertEquals(2, files.size(), "a file's chunks on both spaces count once per file: " + files);
        for (JsonNode file : files) {
            assertEquals(4, file.get("entries").longValue(), "nb-1 has three chunks on one space, one on the other");
        }
    }

    @Test
    void humanOutputShowsSpacesAndFiles() throws Exception {
        TestCache cache = TestCache.standard(1);

        CommandRun run = CommandRun.of(cache.args("stats"));

        assertEquals(0, run.exitCode(), run.err());
        assertEquals("", run.err());
        String out = run.out();
        assertTrue(out.matches("(?s)spaces:\nSPACE +SEGMENTS +DURABLE +ENTRIES +CHUNK BYTES +DEVICE\n.*"), out);
        assertTrue(out.matches("(?s).*\n +0 +\\d+ +1 +7 +148784 +" + Pattern.quote(cache.devices.get(0).toString())
                + "\n\nfiles:\n.*"), out);
        assertTrue(out.matches("(?s).*\n +4 +99632 +\\S+nb-2-big-Data.db\n +3 +49152 +\\S+nb-1-big-Data.db\n"), out);
    }

    @Test
    void aDeviceWithoutACacheCountsNothingAndSaysWhy() throws Exception {
        TestCache cache = new TestCache(1);

        JsonNode space = JsonRun.of(0, cache.args("stats")).get("spaces").get(0);
        CommandRun run = CommandRun.of(cache.args("stats"));

        assertEquals(0, space.get("entries").longValue());
        assertEquals(0, space.get("segments").longValue());
        assertEquals(0, run.exitCode());
        assertTrue(run.err().contains(cache.devices.get(0) + ": blank superblock"), run.err());
    }
}

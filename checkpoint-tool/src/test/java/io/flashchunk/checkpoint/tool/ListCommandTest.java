package io.flashchunk.checkpoint.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.flashchunk.cache.format.RecordAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ListCommandTest {

    @Test
    void listsEveryChunkWithItsFilePositionLengthAndRecord() throws Exception {
        TestCache cache = TestCache.standard(1);

        JsonNode entries = JsonRun.of(0, cache.args("list"));

        assertEquals(TestCache.STANDARD_ENTRIES, entries.size());
        Set<String> expected = new HashSet<>();
        for (TestCache.Chunk chunk : cache.chunks) {
            expected.add(chunk.file() + "@" + chunk.position() + ":" + chunk.bytes().length);
        }
        Set<String> listed = new HashSet<>();
        Set<String> records = new HashSet<>();
        for (JsonNode entry : entries) {
            listed.add(entry.get("file").textValue() + "@" + entry.get("position").longValue() + ":"
                    + entry.get("length").intValue());
            assertEquals(0, entry.get("space").intValue());
            assertEquals(cache.devices.get(0).toString(), entry.get("device").textValue());
            assertTrue(entry.get("fileId").isInt(), entry.toString());
            long offset = entry.get("offsetInSegment").longValue();
            assertEquals(0, offset % RecordAddress.MIN_SECTOR_BYTES, "records start on a sector: " + entry);
            assertTrue(records.add(entry.get("segment").longValue() + "/" + offset), "two entries, one record: " + entries);
        }
        assertEquals(expected, listed);
    }

    @Test
    void filtersByPathSubstring() throws Exception {
        TestCache cache = TestCache.standard(1);

        JsonNode entries = JsonRun.of(0, cache.args("list", "--file", "nb-2-"));

        assertEquals(4, entries.size());
        List<Long> positions = new ArrayList<>();
        for (JsonNode entry : entries) {
            assertTrue(entry.get("file").textValue().endsWith("nb-2-big-Data.db"), entry.toString());
            positions.add(entry.get("position").longValue());
        }
        assertEquals(List.of(0L, 16384L, 65536L, 131072L), positions, "sorted by position within a file");
        assertEquals(0, JsonRun.of(0, cache.args("list", "--file", "no-such-file")).size());
    }

    @Test
    void humanOutputIsATableSortedByFileAndPosition() throws Exception {
        TestCache cache = TestCache.standard(1);
        Path first = cache.dataDir.resolve("nb-1-big-Data.db");

        CommandRun run = CommandRun.of(cache.args("list"));

        assertEquals(0, run.exitCode(), run.err());
        assertEquals("", run.err());
        List<String> lines = run.out().lines().toList();
        assertEquals(1 + TestCache.STANDARD_ENTRIES, lines.size(), run.out());
        assertTrue(lines.get(0).matches("SPACE +POSITION +LENGTH +SEGMENT +OFFSET +FILE"), lines.get(0));
        assertTrue(lines.get(1).matches(" *0 +0 +16384 +\\d+ +\\d+ +" + first), lines.get(1));
        assertTrue(lines.get(2).matches(" *0 +16384 +16384 +\\d+ +\\d+ +" + first), lines.get(2));
        assertTrue(lines.get(4).matches(" *0 +0 +4096 .*nb-2-big-Data.db"), lines.get(4));
        int fileColumn = lines.get(0).indexOf("FILE");
        for (String line : lines.subList(1, lines.size())) {
            assertEquals(fileColumn, line.indexOf(cache.dataDir.toString()), "file column lined up: " + line);
        }
    }

    @Test
    void listsTheEntriesOfBothSpaces() throws Exception {
        TestCache cache = TestCache.standardOnTwoSpaces();

        JsonNode entries = JsonRun.of(0, cache.args("list"));

        assertEquals(TestCache.STANDARD_ENTRIES + 1, entries.size());
        int[] perSpace = new int[2];
        int previousSpace = 0;
        for (JsonNode entry : entries) {
            int space = entry.get("space").intValue();
            perSpace[space]++;
            assertTrue(space >= previousSpace, "sorted by space first: " + entries);
            previousSpace = space;
            assertEquals(cache.devices.get(space).toString(), entry.get("device").textValue());
        }
        assertTrue(perSpace[0] > 0 && perSpace[1] > 0, "both spaces hold chunks: " + entries);
    }

    @Test
    void jsonKeepsFilePathsWithQuotesAndControlCharacters() throws Exception {
        TestCache cache = new TestCache(1);
        Path awkward = cache.dataFile("quote\" back\\slash\ttab\nnewline\u0001ctrl\u001f-Data.db");
        cache.fill(List.of(TestCache.chunk(awkward, 0, 4096)));

        JsonNode entries = JsonRun.of(0, cache.args("list"));

        assertEquals(awkward.toString(), entries.get(0).get("file").textValue());
    }

    @Test
    void aDeviceWithoutACacheListsNothingAndSaysWhy() throws Exception {
        TestCache cache = new TestCache(1); // never started: a blank device

        CommandRun run = CommandRun.of(cache.args("list"));

        assertEquals(0, run.exitCode());
        assertEquals(1, run.out().lines().count(), "the header only: " + run.out());
        assertTrue(run.err().contains(cache.devices.get(0) + ": blank superblock"), run.err());
    }

    @Test
    void anEmptyCacheListsNothingAndSaysSo() throws Exception {
        TestCache cache = new TestCache(1);
        cache.fill(List.of()); // formats, then checkpoints nothing

        CommandRun run = CommandRun.of(cache.args("list"));

        assertEquals(0, run.exitCode());
        assertEquals(1, run.out().lines().count(), "the header only: " + run.out());
        assertTrue(run.err().contains("no entries restored"), run.err());
    }

    @Test
    void rejectsAMissingPath() {
        CommandRun run = CommandRun.of("list", "/no/such/flash.img", "--file", "x");

        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("/no/such/flash.img"), run.err());
    }
}

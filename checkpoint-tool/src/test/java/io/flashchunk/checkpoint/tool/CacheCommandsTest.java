package io.flashchunk.checkpoint.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every subcommand on the devices of a real compact-engine cache (filled through the plugin's public
 * API, closed with a checkpoint): what recovery restores is what info, list and stats show, verify
 * passes it, and damage to a record, an area or the device order is found and named.
 */
class CacheCommandsTest {
    private static final int CHUNK = TestCache.CHUNK;

    /** Two files, seven chunks of several lengths, in two caches' lives (so both areas hold a checkpoint). */
    private static TestCache compactCache(int devices) throws Exception {
        TestCache cache = new TestCache(devices);
        Path first = cache.dataFile("nb-1-big-Data.db");
        Path second = cache.dataFile("nb-2-big-Data.db");
        cache.fill(List.of(TestCache.chunk(first, 0, CHUNK), TestCache.chunk(first, CHUNK, CHUNK),
                TestCache.chunk(first, 2 * CHUNK, CHUNK)));
        cache.fill(List.of(TestCache.chunk(second, 0, 4096), TestCache.chunk(second, CHUNK, 10000),
                TestCache.chunk(second, 4 * CHUNK, 65536), TestCache.chunk(second, 8 * CHUNK, 20000)));
        return cache;
    }

    private static String sha256(Path file) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(Files.readAllBytes(file)));
    }

    @Test
    void infoListStatsAndVerifyShowWhatRecoveryRestores() throws Exception {
        TestCache cache = compactCache(1);
        String before = sha256(cache.devices.get(0));
        CommandRun info = CommandRun.of(cache.args("info"));
        assertEquals(0, info.exitCode(), info.err());
        assertTrue(info.out().contains("format:") && info.out().contains("compact engine"), info.out());
        assertTrue(info.out().contains("7 entries restored (0 left out)"), info.out());
        assertTrue(info.out().contains("set-problems:  none") || info.out().contains("set-problems: none"), info.out());
        JsonNode json = JsonRun.of(0, cache.args("info"));
        assertEquals("compact", json.get("format").asText());
        assertEquals(7, json.get("summary").get("restoredEntries").asLong());
        JsonNode areas = json.get("devices").get(0).get("areas");
        assertEquals("valid", areas.get(0).get("state").asText());
        assertEquals("valid", areas.get(1).get("state").asText(), "two lives, two checkpoints");
        String used = json.get("devices").get(0).get("recoveryArea").asText();
        long newest = Math.max(areas.get(0).get("sequence").asLong(), areas.get(1).get("sequence").asLong());
        assertEquals(newest, areas.get(used.equals("A") ? 0 : 1).get("sequence").asLong(), "recovery uses the newest");

        JsonNode list = JsonRun.of(0, cache.args("list"));
        assertEquals(7, list.size());
        for (TestCache.Chunk chunk : cache.chunks) {
            boolean found = false;
            for (JsonNode entry : list) {
                found |= entry.get("file").asText().equals(chunk.file().toString())
                        && entry.get("position").asLong() == chunk.position()
                        && entry.get("length").asInt() == chunk.bytes().length;
            }
            assertTrue(found, "listed: " + chunk.file() + " at " + chunk.position() + ": " + list);
        }
        assertEquals(4, JsonRun.of(0, cache.args("list", "--file", "nb-2")).size());
        CommandRun table = CommandRun.of(cache.args("list"));
        assertEquals(8, table.out().lines().count(), "a header and seven rows: " + table.out());

        JsonNode stats = JsonRun.of(0, cache.args("stats"));
        assertEquals(7, stats.get("spaces").get(0).get("entries").asLong());
        assertEquals(3 * CHUNK + 4096 + 10000 + 65536 + 20000, stats.get("spaces").get(0).get("chunkBytes").asLong());
        assertEquals(4, stats.get("files").get(0).get("entries").asLong(), "most entries first");

        CommandRun verify = CommandRun.of(cache.args("verify", "--data"));
        assertEquals(0, verify.exitCode(), verify.out());
        assertTrue(verify.out().contains("7 chunk(s) read back (0 corrupt, 0 stale, 0 unreadable)"), verify.out());
        assertTrue(verify.out().contains("result: OK"), verify.out());
        assertEquals(before, sha256(cache.devices.get(0)), "no command wrote to the device");
    }

    @Test
    void aTruncatedDeviceIsNamedNotAStackTrace() throws Exception {
        TestCache cache = compactCache(1);
        Path device = cache.devices.get(0);
        try (var channel = java.nio.channels.FileChannel.open(device, StandardOpenOption.WRITE)) {
            channel.truncate(1L << 20); // the superblock and areas stay; no segment fits any more
        }
        CommandRun info = CommandRun.of(cache.args("info"));
        assertEquals(0, info.exitCode(), info.err());
        assertTrue(info.out().contains("was laid out for") && info.out().contains("now holds 1 MiB (capacity changed"),
                info.out());
        assertTrue(info.out().contains("not run"), info.out());
        CommandRun verify = CommandRun.of(cache.args("verify", "--data"));
        assertEquals(1, verify.exitCode(), verify.out() + verify.err());
        assertTrue(verify.out().contains("resized or truncated"), verify.out());
        assertFalse(verify.err().contains("Exception"), verify.err());
    }

    @Test
    void anInvalidatedChunkIsNotListedThoughItsRecordIsStillInItsSegment() throws Exception {
        TestCache cache = compactCache(1);
        Path first = cache.dataDir.resolve("nb-1-big-Data.db");
        cache.fill(List.of(new TestCache.Chunk(first, CHUNK, null)));
        JsonNode list = JsonRun.of(0, cache.args("list", "--file", "nb-1"));
        assertEquals(2, list.size(), list.toString());
        list.forEach(entry -> assertTrue(entry.get("position").asLong() != CHUNK, list.toString()));
        CommandRun verify = CommandRun.of(cache.args("verify", "--data"));
        assertEquals(0, verify.exitCode(), verify.out());
        assertTrue(verify.out().contains("6 entries, 6 chunk(s) read back (0 corrupt"), verify.out());
    }

    @Test
    void aDamagedRecordIsAProblemUnlessItsFileChangedSince() throws Exception {
        TestCache cache = compactCache(1);
        JsonNode superblock = JsonRun.of(0, cache.args("info")).get("devices").get(0).get("superblock");
        List<JsonNode> entries = new ArrayList<>();
        JsonRun.of(0, cache.args("list")).forEach(entries::add);
        JsonNode victim = entries.stream().filter(e -> e.get("file").asText().endsWith("nb-1-big-Data.db")).findFirst()
                .orElseThrow();
        long recordAt = TestCache.recordByte(superblock, victim);
        TestCache.flipByte(cache.devices.get(0), recordAt + 32 + 100); // in the chunk, after the 32-byte header

        assertEquals(0, CommandRun.of(cache.args("verify")).exitCode(), "without --data no chunk is read");
        CommandRun verify = CommandRun.of(cache.args("verify", "--data"));
        assertEquals(1, verify.exitCode(), verify.out());
        assertTrue(verify.out().contains("(1 corrupt, 0 stale, 0 unreadable)"), verify.out());
        assertTrue(verify.out().contains("nb-1-big-Data.db at " + victim.get("position").asLong())
                && verify.out().contains("fails its CRC32C"), verify.out());

        // Once its file changed, start never restores the file: its damaged chunk is stale, not a problem.
        Files.writeString(cache.dataDir.resolve("nb-1-big-Data.db"), "more", StandardOpenOption.APPEND);
        verify = CommandRun.of(cache.args("verify", "--data"));
        assertEquals(0, verify.exitCode(), verify.out());
        assertTrue(verify.out().contains("(0 corrupt, 1 stale, 0 unreadable)"), verify.out());
        assertTrue(verify.out().contains("note: ") && verify.out().contains("has changed or is gone"), verify.out());
    }

    @Test
    void aCorruptNewestAreaIsNamedAndRecoveryFallsBackToTheOther() throws Exception {
        TestCache cache = compactCache(1);
        JsonNode device = JsonRun.of(0, cache.args("info")).get("devices").get(0);
        String newest = device.get("recoveryArea").asText();
        long areaBlocks = device.get("superblock").get("areaBlocks").asLong();
        long headerBlock = newest.equals("A") ? 1 : 1 + areaBlocks;
        TestCache.flipByte(cache.devices.get(0), (headerBlock + 1) * 4096 + 3); // the body's first bytes

        JsonNode after = JsonRun.of(0, cache.args("info")).get("devices").get(0);
        String older = newest.equals("A") ? "B" : "A";
        assertEquals(older, after.get("recoveryArea").asText());
        JsonNode damaged = after.get("areas").get(newest.equals("A") ? 0 : 1);
        assertEquals("invalid", damaged.get("state").asText());
        assertTrue(damaged.get("problems").get(0).asText().contains("body checksum mismatch"), damaged.toString());
        CommandRun verify = CommandRun.of(cache.args("verify", "--data"));
        assertEquals(1, verify.exitCode(), verify.out());
        assertTrue(verify.out().contains("checkpoint area " + newest), verify.out());
        // The older area is the second life's checkpoint asked for before its close: it names all seven
        // chunks too (a checkpoint names every chunk appended before it, the open segment's as well).
        assertTrue(verify.out().contains("7 chunk(s) read back (0 corrupt"), "the older checkpoint's chunks: " + verify.out());
    }

    @Test
    void aSegmentSummaryThatDoesNotCheckIsANoteAndItsEntriesAreNotListed() throws Exception {
        TestCache cache = compactCache(1);
        JsonNode superblock = JsonRun.of(0, cache.args("info")).get("devices").get(0).get("superblock");
        JsonNode first = JsonRun.of(0, cache.args("list", "--file", "nb-1")).get(0);
        long segmentEnd = superblock.get("segmentsFromByte").asLong()
                + (first.get("segment").asLong() + 1) * superblock.get("segmentBytes").asLong();
        // The summary's trailer, at the segment's end: as a power cut in its rewrite can leave it.
        TestCache.flipByte(cache.devices.get(0), segmentEnd - 5);
        CommandRun verify = CommandRun.of(cache.args("verify", "--data"));
        assertEquals(0, verify.exitCode(), "a summary that does not check is no fault: " + verify.out());
        assertTrue(verify.out().contains("its summary does not check"), verify.out());
        JsonNode listed = JsonRun.of(0, cache.args("list"));
        assertTrue(listed.size() < 7, "the segment's entries are not listed: " + listed);
    }

    @Test
    void devicesInAnotherOrderAreTheSameCache() throws Exception {
        TestCache cache = compactCache(2);
        CommandRun swapped = CommandRun.of("verify", "--data", cache.devices.get(1).toString(),
                cache.devices.get(0).toString());
        assertEquals(0, swapped.exitCode(), swapped.out());
        assertTrue(swapped.out().contains("7 chunk(s) read back"), swapped.out());
        CommandRun inOrder = CommandRun.of(cache.args("verify", "--data"));
        assertEquals(0, inOrder.exitCode(), inOrder.out());
        assertTrue(inOrder.out().contains("7 chunk(s) read back"), inOrder.out());
    }
}

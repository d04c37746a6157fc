package io.flashchunk.checkpoint.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class InfoCommandTest {

    @Test
    void oneFillIsCheckpointedInBothAreasAndRecoveryUsesTheNewer() throws Exception {
        long before = System.currentTimeMillis();
        TestCache cache = TestCache.standard(1);

        JsonNode info = JsonRun.of(0, cache.args("info"));

        assertEquals("compact", info.get("format").textValue());
        JsonNode device = info.get("devices").get(0);
        assertEquals(cache.devices.get(0).toString(), device.get("path").textValue());
        JsonNode superblock = device.get("superblock");
        assertEquals("valid", superblock.get("state").textValue());
        assertTrue(superblock.get("problem").isNull());
        assertEquals(0, superblock.get("spaceIndex").intValue());
        assertEquals(1, superblock.get("spaceCount").intValue());
        assertEquals(TestCache.DEVICE_BYTES / 4096, superblock.get("deviceBlocks").longValue());
        assertEquals(1 << 20, superblock.get("segmentBytes").intValue());
        assertEquals(64, superblock.get("sectorBytes").intValue(), "a device under 4 TiB");
        long areasEnd = (1 + 2 * superblock.get("areaBlocks").longValue()) * 4096;
        long segmentsEnd = superblock.get("segmentsFromByte").longValue()
                + superblock.get("segments").longValue() * superblock.get("segmentBytes").longValue();
        assertTrue(superblock.get("segmentsFromByte").longValue() >= areasEnd, "segments after both areas: " + superblock);
        assertTrue(segmentsEnd <= TestCache.DEVICE_BYTES && segmentsEnd > TestCache.DEVICE_BYTES - (1 << 20),
                "every whole segment past the areas is used: " + superblock);

        // checkpointNow, then close: two checkpoints, one in each area.
        JsonNode areas = device.get("areas");
        for (int i = 0; i < 2; i++) {
            JsonNode area = areas.get(i);
            assertEquals(i == 0 ? "A" : "B", area.get("name").textValue());
            assertEquals("valid", area.get("state").textValue());
            assertEquals(0, area.get("problems").size());
            assertEquals(TestCache.STANDARD_ENTRIES, area.get("entries").longValue());
            assertEquals(2, area.get("files").longValue());
            assertTrue(area.get("bodyBytes").longValue() > 0);
            Instant time = Instant.parse(area.get("time").textValue());
            assertTrue(!time.isBefore(Instant.ofEpochMilli(before)) && !time.isAfter(Instant.now()), time.toString());
            assertTrue(area.get("time").textValue().endsWith("Z"), "UTC");
        }
        assertEquals(newerArea(areas), device.get("recoveryArea").textValue());

        JsonNode summary = info.get("summary");
        assertEquals(superblock.get("instance").textValue(), summary.get("instance").textValue());
        assertTrue(summary.get("recovered").booleanValue());
        assertEquals(0, summary.get("setProblems").size());
        assertEquals(TestCache.STANDARD_ENTRIES, summary.get("restoredEntries").longValue());
        assertEquals(0, summary.get("skippedEntries").longValue());
        assertEquals(1, summary.get("durableSegments").longValue());
        assertEquals(2, summary.get("files").longValue());
    }

    @Test
    void humanOutputShowsBothAreasAndTheOneRecoveryUses() throws Exception {
        TestCache cache = TestCache.standard(1);

        CommandRun run = CommandRun.of(cache.args("info"));

        assertEquals(0, run.exitCode(), run.err());
        assertEquals("", run.err());
        assertTrue(run.out().startsWith("device 0: " + cache.devices.get(0) + "\n"), run.out());
        assertTrue(run.out().matches("(?s).*format: +compact engine\n.*"), run.out());
        for (String area : new String[] {"A", "B"}) {
            assertTrue(run.out().matches("(?s).*area " + area
                    + ": +valid: sequence \\d+, \\S+Z, 7 entries, 2 files, \\d+ body bytes\n.*"), run.out());
        }
        assertTrue(run.out().matches("(?s).*recovery-uses: +area [AB] \\(sequence \\d+\\)\n.*"), run.out());
        assertTrue(run.out().matches("(?s).*durable-segments: +1\n.*"), run.out());
        assertTrue(run.out().matches("(?s).*set-problems: +none\n.*"), run.out());
        assertTrue(run.out().matches("(?s).*recovery: +7 entries restored \\(0 left out\\), 1 durable segments, 2 files\n"),
                run.out());
    }

    @Test
    void everyDeviceShowsTheStartThatLastWroteItsSuperblock() throws Exception {
        long before = System.currentTimeMillis();
        TestCache cache = TestCache.standard(2);

        JsonNode devices = JsonRun.of(0, cache.args("info")).get("devices");
        CommandRun human = CommandRun.of(cache.args("info"));

        JsonNode start = devices.get(0).get("superblock").get("start");
        String runId = start.get("runId").textValue();
        String startId = start.get("startId").textValue();
        assertTrue(runId.matches("[0-9a-f]{16}") && !runId.equals("0000000000000000"), start.toString());
        assertTrue(startId.matches("[0-9a-f]{16}") && !startId.equals("0000000000000000"), start.toString());
        assertTrue(start.get("settled").booleanValue(), start.toString());
        Instant time = Instant.parse(start.get("time").textValue());
        assertTrue(!time.isBefore(Instant.ofEpochMilli(before)) && !time.isAfter(Instant.now()), time.toString());
        assertEquals(start, devices.get(1).get("superblock").get("start"), "both devices of the start");
        String line = "  start: +run " + runId + ", start " + startId + " after ([0-9a-f]{16}|none), "
                + time + ", settled\n";
        assertEquals(0, human.exitCode(), human.err());
        assertTrue(human.out().matches("(?s)device 0: .*" + line + ".*device 1: .*" + line + ".*"), human.out());
    }

    @Test
    void aRestartGoesOnFromTheStartBeforeIt() throws Exception {
        TestCache cache = TestCache.standard(2);
        JsonNode first = JsonRun.of(0, cache.args("info")).get("devices").get(0).get("superblock").get("start");
        cache.fill(List.of(TestCache.chunk(cache.dataDir.resolve("nb-1-big-Data.db"), 3 * TestCache.CHUNK, TestCache.CHUNK)));

        JsonNode devices = JsonRun.of(0, cache.args("info")).get("devices");
        CommandRun human = CommandRun.of(cache.args("info"));

        JsonNode second = devices.get(0).get("superblock").get("start");
        assertEquals(first.get("runId"), second.get("runId"), "the same devices: the same run");
        assertFalse(first.get("startId").equals(second.get("startId")), second.toString());
        assertEquals(first.get("startId"), second.get("previousStartId"), second.toString());
        assertEquals(second, devices.get(1).get("superblock").get("start"));
        assertTrue(human.out().contains(", start " + second.get("startId").textValue() + " after "
                + first.get("startId").textValue() + ", "), human.out());
    }

    @Test
    void aSuperblockOfAReleaseBeforeStartStampsShowsNone() throws Exception {
        TestCache cache = TestCache.standard(1);
        try (RandomAccessFile device = new RandomAccessFile(cache.devices.get(0).toFile(), "rw")) {
            device.seek(96);  // the stamp and its checksum, bytes 96..135, as that release left them
            device.write(new byte[40]);
        }

        JsonNode superblock = JsonRun.of(0, cache.args("info")).get("devices").get(0).get("superblock");
        CommandRun human = CommandRun.of(cache.args("info"));

        assertEquals("valid", superblock.get("state").textValue());
        assertTrue(superblock.get("start").isNull(), superblock.toString());
        assertTrue(human.out().matches("(?s).*\n  start: +none recorded \\(zeros, as a release before start stamps leaves them, or a stamp that fails its checksum\\)\n.*"),
                human.out());
    }

    @Test
    void aLaterCheckpointReplacesTheOlderAreaAndRecoveryUsesIt() throws Exception {
        TestCache cache = TestCache.standard(1);
        JsonNode first = JsonRun.of(0, cache.args("info")).get("devices").get(0).get("areas");
        long firstNewest = Math.max(first.get(0).get("sequence").longValue(), first.get(1).get("sequence").longValue());
        cache.fill(List.of(TestCache.chunk(cache.dataFile("nb-3-big-Data.db"), 0, TestCache.CHUNK)));

        JsonNode info = JsonRun.of(0, cache.args("info"));

        JsonNode device = info.get("devices").get(0);
        JsonNode areas = device.get("areas");
        String used = device.get("recoveryArea").textValue();
        assertEquals(newerArea(areas), used);
        JsonNode newest = areas.get(used.equals("A") ? 0 : 1);
        assertTrue(newest.get("sequence").longValue() > firstNewest, areas.toString());
        assertEquals(TestCache.STANDARD_ENTRIES + 1, newest.get("entries").longValue());
        assertEquals(3, newest.get("files").longValue());
        assertEquals(TestCache.STANDARD_ENTRIES + 1, info.get("summary").get("restoredEntries").longValue());
    }

    @Test
    void aCrashAfterADeltaIsRecoveredFromItsFullCheckpointAndTheDelta() throws Exception {
        TestCache cache = TestCache.standard(1);
        TestCache crashed = cache.crashedAfterADelta(List.of(
                TestCache.chunk(cache.dataDir.resolve("nb-1-big-Data.db"), 3 * TestCache.CHUNK, TestCache.CHUNK)));

        JsonNode info = JsonRun.of(0, crashed.args("info"));

        JsonNode device = info.get("devices").get(0);
        String used = device.get("recoveryArea").textValue();
        JsonNode area = device.get("areas").get(used.equals("A") ? 0 : 1);
        assertEquals(TestCache.STANDARD_ENTRIES, area.get("entries").longValue(), "the full checkpoint");
        JsonNode deltas = area.get("deltas");
        assertEquals(1, deltas.size(), area.toString());
        assertEquals(1, device.get("recoveryDelta").intValue());
        JsonNode delta = deltas.get(0);
        assertTrue(delta.get("sequence").longValue() > area.get("sequence").longValue(), area.toString());
        assertTrue(delta.get("changedSegments").longValue() >= 1, delta.toString());
        assertTrue(delta.get("bodyBytes").longValue() < area.get("bodyBytes").longValue(), area.toString());
        assertEquals(TestCache.STANDARD_ENTRIES + 1, info.get("summary").get("restoredEntries").longValue());

        CommandRun text = CommandRun.of(crashed.args("info"));
        assertTrue(text.out().matches("(?s).*area " + used + " deltas: +1 after it, the newest sequence \\d+, \\S+Z, \\d+ "
                + "changed segments, 0 forgotten chunks, \\d+ body bytes\n.*"), text.out());
        assertTrue(text.out().matches("(?s).*recovery-uses: +area " + used
                + " \\(sequence \\d+, then its delta 1: sequence \\d+\\)\n.*"), text.out());
        CommandRun verify = CommandRun.of(crashed.args("verify", "--data"));
        assertEquals(0, verify.exitCode(), verify.out() + verify.err());
        assertTrue(verify.out().contains("8 chunk(s) read back (0 corrupt, 0 stale, 0 unreadable)"), verify.out());
    }

    @Test
    void twoDevicesFormOneCache() throws Exception {
        TestCache cache = TestCache.standardOnTwoSpaces();

        JsonNode info = JsonRun.of(0, cache.args("info"));

        JsonNode devices = info.get("devices");
        assertEquals(2, devices.size());
        long entries = 0;
        for (int i = 0; i < 2; i++) {
            JsonNode superblock = devices.get(i).get("superblock");
            assertEquals(i, superblock.get("spaceIndex").intValue());
            assertEquals(2, superblock.get("spaceCount").intValue());
            assertEquals(info.get("summary").get("instance").textValue(), superblock.get("instance").textValue());
            String used = devices.get(i).get("recoveryArea").textValue();
            assertEquals(devices.get(0).get("recoveryArea").textValue(), used, "one checkpoint writes every space");
            long spaceEntries = devices.get(i).get("areas").get(used.equals("A") ? 0 : 1).get("entries").longValue();
            assertTrue(spaceEntries > 0, "both spaces hold chunks: " + info);
            entries += spaceEntries;
        }
        assertEquals(TestCache.STANDARD_ENTRIES + 1, entries, "each space's checkpoint names its own entries");
        assertTrue(info.get("summary").get("recovered").booleanValue(), info.toString());
        assertEquals(0, info.get("summary").get("setProblems").size());
        assertEquals(TestCache.STANDARD_ENTRIES + 1, info.get("summary").get("restoredEntries").longValue());
    }

    @Test
    void devicesOfDifferentCachesDoNotFormOne() throws Exception {
        TestCache one = TestCache.standard(2);
        TestCache other = TestCache.standard(2);
        String[] args = {"info", one.devices.get(0).toString(), other.devices.get(1).toString(),
            one.devices.get(1).toString()};

        CommandRun run = CommandRun.of(args);
        JsonNode summary = JsonRun.of(0, args).get("summary");

        assertEquals(0, run.exitCode(), "info reports; it does not judge");
        assertTrue(run.out().matches("(?s).*instance: +none, or the devices disagree\n.*"), run.out());
        assertTrue(run.out().matches("(?s).*recovery: +not run: the devices do not form one cache.*"), run.out());
        assertTrue(summary.get("instance").isNull());
        assertFalse(summary.get("recovered").booleanValue());
        // The cache that ran last is the one kept: the other's devices are named.
        assertEquals(2, summary.get("setProblems").size(), summary.toString());
        for (JsonNode problem : summary.get("setProblems")) {
            assertTrue(problem.textValue().startsWith(one.devices.get(0) + " belongs to cache instance ")
                    || problem.textValue().startsWith(one.devices.get(1) + " belongs to cache instance "),
                    summary.toString());
        }
    }

    @Test
    void aBlankDeviceIsReportedAsSuch() throws Exception {
        Path blank = ScratchFiles.newDirectory().resolve("blank.img");
        try (RandomAccessFile file = new RandomAccessFile(blank.toFile(), "rw")) {
            file.setLength(TestCache.DEVICE_BYTES);
        }

        JsonNode info = JsonRun.of(0, "info", blank.toString());
        CommandRun run = CommandRun.of("info", blank.toString());

        JsonNode device = info.get("devices").get(0);
        assertEquals("blank", device.get("superblock").get("state").textValue());
        assertEquals(blank + ": blank superblock (all zeros): the device was never formatted as a cache",
                device.get("superblock").get("problem").textValue());
        assertEquals(0, device.get("areas").size());
        assertTrue(device.get("recoveryArea").isNull());
        assertFalse(info.get("summary").get("recovered").booleanValue());
        assertTrue(run.out().matches("(?s).*superblock: +blank: .*never formatted.*"), run.out());
    }

    @Test
    void aCorruptSuperblockIsReportedWithTheReadersReason() throws Exception {
        TestCache cache = TestCache.standard(1);
        TestCache.flipByte(cache.devices.get(0), 30); // inside the space index: only the checksum notices

        JsonNode superblock = JsonRun.of(0, cache.args("info")).get("devices").get(0).get("superblock");

        assertEquals("invalid", superblock.get("state").textValue());
        assertEquals(cache.devices.get(0) + ": superblock checksum mismatch", superblock.get("problem").textValue());
    }

    @Test
    void rejectsAMissingPath() throws Exception {
        TestCache cache = TestCache.standard(1);
        Path missing = cache.directory.resolve("no-such-device");

        CommandRun run = CommandRun.of("info", cache.devices.get(0).toString(), missing.toString());

        assertEquals(2, run.exitCode());
        assertEquals("", run.out());
        assertTrue(run.err().contains(missing + ": no such file or device"), run.err());
    }

    @Test
    void rejectsADeviceGivenTwice() throws Exception {
        TestCache cache = TestCache.standard(1);

        CommandRun run = CommandRun.of("info", cache.devices.get(0).toString(), cache.devices.get(0).toString());

        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("given twice"), run.err());
    }

    @Test
    void needsAtLeastOneDevice() {
        CommandRun run = CommandRun.of("info");

        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("<device>"), run.err());
    }

    /** "A" or "B": the area whose checkpoint has the higher sequence. */
    private static String newerArea(JsonNode areas) {
        assertTrue(areas.get(0).get("sequence").longValue() != areas.get(1).get("sequence").longValue(), areas.toString());
        return areas.get(0).get("sequence").longValue() > areas.get(1).get("sequence").longValue() ? "A" : "B";
    }
}

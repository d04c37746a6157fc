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
    void aFreshCacheHasOneValidAreaAndOneEmpty() throws Exception {
        long before = System.currentTimeMillis();
        TestCache cache = TestCache.standard(1);

        JsonNode info = JsonRun.of(0, cache.args("info"));

        JsonNode device = info.get("devices").get(0);
        assertEquals(cache.devices.get(0).toString(), device.get("path").textValue());
        JsonNode superblock = device.get("superblock");
        assertEquals("valid", superblock.get("state").textValue());
        assertEquals(0, superblock.get("spaceIndex").intValue());
        assertEquals(1, superblock.get("spaceCount").intValue());
        assertEquals(TestCache.DEVICE_BYTES / 4096, superblock.get("deviceBlocks").longValue());
        long areaBlocks = superblock.get("areaBlocks").longValue();
        assertEquals(1 + 2 * areaBlocks, superblock.get("dataStart").longValue());
        long end = superblock.get("dataStart").longValue() + superblock.get("dataBlocks").longValue();
        assertTrue(end <= TestCache.DEVICE_BYTES / 4096 && end > TestCache.DEVICE_BYTES / 4096 - 16,
                "nearly every block past the areas is data: " + superblock);
        assertTrue(superblock.get("problem").isNull());

        JsonNode areaA = device.get("areas").get(0);
        assertEquals("A", areaA.get("area").textValue());
        assertEquals("valid", areaA.get("state").textValue());
        assertTrue(areaA.get("valid").booleanValue());
        assertEquals(1, areaA.get("sequence").longValue());
        assertEquals(TestCache.STANDARD_ENTRIES, areaA.get("entries").longValue());
        assertEquals(2, areaA.get("files").longValue());
        assertTrue(areaA.get("bodyBytes").longValue() > TestCache.STANDARD_ENTRIES * 20L, "entries plus file table");
        Instant time = Instant.parse(areaA.get("time").textValue());
        assertTrue(!time.isBefore(Instant.ofEpochMilli(before)) && !time.isAfter(Instant.now()), time.toString());
        assertTrue(areaA.get("time").textValue().endsWith("Z"), "UTC");

        JsonNode areaB = device.get("areas").get(1);
        assertEquals("empty", areaB.get("state").textValue());
        assertFalse(areaB.get("valid").booleanValue());
        assertTrue(areaB.get("problem").isNull() && areaB.get("sequence").isNull());
        assertEquals("A", device.get("recoveryArea").textValue());

        JsonNode summary = info.get("summary");
        assertTrue(summary.get("instanceAgrees").booleanValue());
        assertEquals(superblock.get("instance").textValue(), summary.get("instance").textValue());
        assertTrue(summary.get("spaceCountAgrees").booleanValue());
        assertTrue(summary.get("consistent").booleanValue());
        assertEquals(0, summary.get("problems").size());
    }

    @Test
    void humanOutputShowsBothAreasAndTheOneRecoveryUses() throws Exception {
        TestCache cache = TestCache.standard(1);

        CommandRun run = CommandRun.of(cache.args("info"));

        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().startsWith("device 0: " + cache.devices.get(0)), run.out());
        assertTrue(run.out().contains("area A:"), run.out());
        assertTrue(run.out().matches("(?s).*area A: +valid: sequence 1, \\S+Z, 7 entries, 2 files, \\d+ body bytes.*"),
                run.out());
        assertTrue(run.out().matches("(?s).*area B: +empty.*"), run.out());
        assertTrue(run.out().matches("(?s).*recovery-uses: +area A \\(sequence 1, 7 entries\\).*"), run.out());
        assertTrue(run.out().matches("(?s).*space-count: +1, as many as devices given.*"), run.out());
    }

    @Test
    void aSecondCheckpointGoesToAreaBAndRecoveryUsesIt() throws Exception {
        TestCache cache = TestCache.standard(1);
        cache.fill(List.of(TestCache.chunk(cache.dataFile("nb-3-big-Data.db"), 0, TestCache.CHUNK)));

        JsonNode areas = JsonRun.of(0, cache.args("info")).get("devices").get(0).get("areas");

        assertEquals(1, areas.get(0).get("sequence").longValue());
        assertEquals(TestCache.STANDARD_ENTRIES, areas.get(0).get("entries").longValue());
        assertEquals(2, areas.get(1).get("sequence").longValue());
        assertEquals(TestCache.STANDARD_ENTRIES + 1, areas.get(1).get("entries").longValue());
        assertEquals("B", JsonRun.of(0, cache.args("info")).get("devices").get(0).get("recoveryArea").textValue());
    }

    @Test
    void twoDevicesAgreeOnInstanceAndSpaceCount() throws Exception {
        TestCache cache = TestCache.standard(2);

        JsonNode info = JsonRun.of(0, cache.args("info"));

        JsonNode devices = info.get("devices");
        assertEquals(2, devices.size());
        long entries = 0;
        for (int i = 0; i < 2; i++) {
            JsonNode superblock = devices.get(i).get("superblock");
            assertEquals(i, superblock.get("spaceIndex").intValue());
            assertEquals(2, superblock.get("spaceCount").intValue());
            assertEquals(info.get("summary").get("instance").textValue(), superblock.get("instance").textValue());
            JsonNode areaA = devices.get(i).get("areas").get(0);
            assertEquals(1, areaA.get("sequence").longValue(), "one checkpoint sequence over all spaces");
            assertTrue(areaA.get("entries").longValue() > 0, "both spaces get chunks: " + info);
            entries += areaA.get("entries").longValue();
        }
        assertEquals(TestCache.STANDARD_ENTRIES, entries);
        assertTrue(info.get("summary").get("consistent").booleanValue(), info.toString());
    }

    @Test
    void devicesOfDifferentCachesDisagree() throws Exception {
        TestCache one = TestCache.standard(1);
        TestCache other = TestCache.standard(1);

        CommandRun run = CommandRun.of("info", one.devices.get(0).toString(), other.devices.get(0).toString());
        JsonNode summary = JsonRun.of(0, "info", one.devices.get(0).toString(), other.devices.get(0).toString())
                .get("summary");

        assertEquals(0, run.exitCode(), "info reports; it does not judge");
        assertTrue(run.out().matches("(?s).*instance: +the devices disagree.*"), run.out());
        assertFalse(summary.get("instanceAgrees").booleanValue());
        assertTrue(summary.get("instance").isNull());
        assertFalse(summary.get("consistent").booleanValue());
        assertTrue(summary.get("problems").toString().contains("belongs to cache instance"), summary.toString());
    }

    @Test
    void aBlankDeviceIsReportedAsSuch() throws Exception {
        Path blank = ScratchFiles.newDirectory().resolve("blank.img");
        try (RandomAccessFile file = new RandomAccessFile(blank.toFile(), "rw")) {
            file.setLength(TestCache.DEVICE_BYTES);
        }

        JsonNode device = JsonRun.of(0, "info", blank.toString()).get("devices").get(0);
        CommandRun run = CommandRun.of("info", blank.toString());

        assertEquals("blank", device.get("superblock").get("state").textValue());
        assertTrue(device.get("superblock").get("problem").textValue().contains("never formatted"));
        assertEquals(0, device.get("areas").size());
        assertTrue(device.get("recoveryArea").isNull());
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
}

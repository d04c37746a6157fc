package io.flashchunk.checkpoint.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.flashchunk.cache.format.RecordFormat;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class VerifyCommandTest {
    private static final int BLOCK = 4096;

    @Test
    void aSoundCacheVerifies() throws Exception {
        TestCache cache = TestCache.standard(1);

        CommandRun run = CommandRun.of(cache.args("verify"));

        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertEquals("", run.err());
        assertEquals("checked: 1 device(s), 1 valid superblock(s), 2 checkpoint area(s) (2 valid, 0 empty, 0 invalid), "
                + "7 entries\nresult: OK, no problems found\n", run.out());
    }

    @Test
    void dataVerificationReadsEveryChunkAndShowsProgress() throws Exception {
        TestCache cache = TestCache.standardOnTwoSpaces();

        CommandRun run = CommandRun.of(cache.args("verify", "--data", "--progress"));

        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("8 entries, 8 chunk(s) read back (0 corrupt, 0 stale, 0 unreadable)"), run.out());
        assertTrue(run.err().contains("\r[" + "#".repeat(30) + "] 100% 8/8 chunks"), run.err());
        assertTrue(run.err().contains("\r[" + " ".repeat(30) + "] 0% 0/8 chunks"), run.err());
        assertTrue(run.err().endsWith("\n"), "the bar's line is ended");
    }

    @Test
    void chunksStoredCompressedAreReadBackAndDecompressed() throws Exception {
        TestCache cache = TestCache.compressed();

        CommandRun run = CommandRun.of(cache.args("verify", "--data"));

        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("3 entries, 3 chunk(s) read back (0 corrupt, 0 stale, 0 unreadable)"), run.out());
    }

    @Test
    void withoutProgressOptionOrTerminalNoBar() throws Exception {
        TestCache cache = TestCache.standard(1);

        CommandRun run = CommandRun.of(cache.args("verify", "--data"));

        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertEquals("", run.err(), "standard error is not a terminal under the tests");
    }

    @Test
    void aFlippedByteInTheNewestCheckpointBodyIsAProblem() throws Exception {
        TestCache cache = TestCache.standard(1);
        JsonNode device = JsonRun.of(0, cache.args("info")).get("devices").get(0);
        String newest = device.get("recoveryArea").textValue();
        String older = newest.equals("A") ? "B" : "A";
        long headerBlock = newest.equals("A") ? 1 : 1 + device.get("superblock").get("areaBlocks").longValue();
        TestCache.flipByte(cache.devices.get(0), (headerBlock + 1) * BLOCK + 3); // the body's first block

        CommandRun run = CommandRun.of(cache.args("verify"));
        JsonNode json = JsonRun.of(1, cache.args("verify"));
        JsonNode after = JsonRun.of(0, cache.args("info")).get("devices").get(0);

        assertEquals(1, run.exitCode(), run.out());
        // Which check trips depends on the byte: an entry's field, or the body's checksum at its end.
        assertTrue(run.out().lines().anyMatch(line -> line.startsWith("problem: ")
                && line.contains(cache.devices.get(0) + " checkpoint area " + newest + ": ")), run.out());
        assertTrue(run.out().endsWith("result: 1 problem found\n"), run.out());
        assertFalse(json.get("ok").booleanValue());
        assertEquals(1, json.get("problems").size(), json.toString());
        JsonNode problem = json.get("problems").get(0);
        assertEquals("area", problem.get("kind").textValue());
        assertEquals(newest, problem.get("area").textValue());
        assertEquals(cache.devices.get(0).toString(), problem.get("device").textValue());
        assertEquals(1, json.get("areas").get("invalid").longValue());
        assertEquals(1, json.get("areas").get("valid").longValue());
        assertEquals(7, json.get("entries").longValue(), "the older checkpoint names every chunk too");

        JsonNode damaged = after.get("areas").get(newest.equals("A") ? 0 : 1);
        assertEquals("invalid", damaged.get("state").textValue());
        assertTrue(damaged.get("sequence").isNumber(), "the header is fine, the body is not: " + damaged);
        assertEquals(older, after.get("recoveryArea").textValue(), "recovery falls back to the older area");
    }

    @Test
    void aTornHeaderIsAProblem() throws Exception {
        TestCache cache = TestCache.standard(1);
        TestCache.flipByte(cache.devices.get(0), 1L * BLOCK + 33); // area A's header

        CommandRun run = CommandRun.of(cache.args("verify"));

        assertEquals(1, run.exitCode(), run.out());
        assertTrue(run.out().contains("problem: " + cache.devices.get(0)
                + " checkpoint area A: checkpoint header checksum mismatch (torn or corrupt)\n"), run.out());
        assertTrue(run.out().contains("(1 valid, 0 empty, 1 invalid)"), run.out());
    }

    @Test
    void aCorruptChunkFailsDataVerificationOnly() throws Exception {
        TestCache cache = TestCache.standard(1);
        JsonNode superblock = JsonRun.of(0, cache.args("info")).get("devices").get(0).get("superblock");
        JsonNode victim = JsonRun.of(0, cache.args("list", "--file", "nb-1-")).get(1);
        TestCache.flipByte(cache.devices.get(0), TestCache.recordByte(superblock, victim) + RecordFormat.HEADER_BYTES + 1000);

        CommandRun plain = CommandRun.of(cache.args("verify"));
        CommandRun data = CommandRun.of(cache.args("verify", "--data"));
        JsonNode json = JsonRun.of(1, cache.args("verify", "--data"));

        assertEquals(0, plain.exitCode(), "the checkpoint itself is sound: " + plain.out());
        assertEquals(1, data.exitCode(), data.out());
        assertTrue(data.out().contains("problem: " + cache.devices.get(0) + ": chunk at segment "
                + victim.get("segment").longValue() + " byte " + victim.get("offsetInSegment").longValue() + ", "
                + victim.get("file").textValue() + " at " + victim.get("position").longValue() + " (16384 bytes): "), data.out());
        assertTrue(data.out().contains("fails its CRC32C"), data.out());
        assertTrue(data.out().contains("7 chunk(s) read back (1 corrupt, 0 stale, 0 unreadable)"), data.out());
        assertEquals(7, json.get("checkedChunks").longValue());
        assertEquals(1, json.get("corruptChunks").longValue());
        assertEquals("chunk", json.get("problems").get(0).get("kind").textValue());
        assertEquals(cache.devices.get(0).toString(), json.get("problems").get(0).get("device").textValue());
    }

    @Test
    void aMismatchOfAChangedFileIsStaleNotAProblem() throws Exception {
        TestCache cache = TestCache.standard(1);
        JsonNode superblock = JsonRun.of(0, cache.args("info")).get("devices").get(0).get("superblock");
        JsonNode victim = JsonRun.of(0, cache.args("list", "--file", "nb-1-")).get(0);
        TestCache.flipByte(cache.devices.get(0), TestCache.recordByte(superblock, victim) + RecordFormat.HEADER_BYTES + 5);
        Path file = Path.of(victim.get("file").textValue());
        Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() - 60_000));

        JsonNode json = JsonRun.of(0, cache.args("verify", "--data"));

        assertTrue(json.get("ok").booleanValue(), json.toString());
        assertEquals(1, json.get("staleChunks").longValue());
        assertEquals(0, json.get("corruptChunks").longValue());
        assertTrue(json.get("notes").get(0).textValue().contains("has changed or is gone since the checkpoint"),
                json.toString());
    }

    @Test
    void devicesInAnotherOrderOrOneLeftOutAreFineButADeviceOfAnotherCacheIsAProblem() throws Exception {
        TestCache cache = TestCache.standard(2);
        TestCache other = TestCache.standard(1);

        CommandRun swapped = CommandRun.of("verify", cache.devices.get(1).toString(), cache.devices.get(0).toString());
        CommandRun one = CommandRun.of("verify", cache.devices.get(1).toString());
        CommandRun mixed = CommandRun.of("verify", cache.devices.get(0).toString(), other.devices.get(0).toString(),
                cache.devices.get(1).toString());

        assertEquals(0, swapped.exitCode(), swapped.out());
        assertEquals(0, one.exitCode(), one.out());
        assertEquals(1, mixed.exitCode(), mixed.out());
        // The cache that ran last (the other) is the one kept: the first cache's devices are named.
        assertTrue(mixed.out().contains("problem: " + cache.devices.get(0) + " belongs to cache instance ")
                && mixed.out().contains("problem: " + cache.devices.get(1) + " belongs to cache instance "), mixed.out());
    }

    @Test
    void aBlankDeviceIsAProblem() throws Exception {
        TestCache cache = new TestCache(1);

        CommandRun run = CommandRun.of(cache.args("verify"));

        assertEquals(1, run.exitCode(), run.out());
        assertTrue(run.out().contains("problem: " + cache.devices.get(0) + ": blank superblock (all zeros)"), run.out());
    }

    @Test
    void aCorruptSuperblockIsAProblem() throws Exception {
        TestCache cache = TestCache.standard(2);
        TestCache.flipByte(cache.devices.get(1), 0); // the magic

        JsonNode json = JsonRun.of(1, cache.args("verify"));

        assertEquals(1, json.get("validSuperblocks").longValue());
        JsonNode problem = json.get("problems").get(0);
        assertEquals("superblock", problem.get("kind").textValue());
        assertEquals(cache.devices.get(1).toString(), problem.get("device").textValue());
        assertTrue(problem.get("message").textValue().startsWith(cache.devices.get(1) + ": no FlashChunk superblock"),
                problem.toString());
    }

    @Test
    void aFormattedCacheWithoutCheckpointIsSound() throws Exception {
        TestCache cache = new TestCache(1);
        cache.fill(List.of()); // formats, then checkpoints nothing
        long areaBlocks = JsonRun.of(0, cache.args("info")).get("devices").get(0).get("superblock")
                .get("areaBlocks").longValue();
        // Wipe both headers, as a crash in the middle of the first checkpoint would leave them.
        try (RandomAccessFile device = new RandomAccessFile(cache.devices.get(0).toFile(), "rw")) {
            for (long headerBlock : new long[] {1, 1 + areaBlocks}) {
                device.seek(headerBlock * BLOCK);
                device.write(new byte[BLOCK]);
            }
        }

        CommandRun run = CommandRun.of(cache.args("verify", "--data"));

        assertEquals(0, run.exitCode(), run.out());
        assertTrue(run.out().startsWith("checked: 1 device(s), 1 valid superblock(s), 2 checkpoint area(s) "
                + "(0 valid, 2 empty, 0 invalid), 0 entries, 0 chunk(s) read back"), run.out());
        assertTrue(run.out().endsWith("result: OK, no problems found\n"), run.out());
    }

    @Test
    void usageErrorsAndUnusablePathsExitWith2() throws Exception {
        TestCache cache = TestCache.standard(1);
        Path missing = cache.directory.resolve("missing.img");
        Path tiny = Files.write(cache.directory.resolve("tiny.img"), new byte[100]);

        CommandRun missingRun = CommandRun.of("verify", cache.devices.get(0).toString(), missing.toString());
        CommandRun directory = CommandRun.of("verify", cache.directory.toString());
        CommandRun tinyRun = CommandRun.of("verify", tiny.toString());
        CommandRun badOption = CommandRun.of(cache.args("verify", "--no-such-option"));

        assertEquals(2, missingRun.exitCode());
        assertEquals("", missingRun.out());
        assertTrue(missingRun.err().contains(missing + ": no such file or device"), missingRun.err());
        assertEquals(2, directory.exitCode());
        assertTrue(directory.err().contains("is a directory"), directory.err());
        assertEquals(2, tinyRun.exitCode());
        assertTrue(tinyRun.err().contains("smaller than one block"), tinyRun.err());
        assertEquals(2, badOption.exitCode());
    }

    @Test
    void theDevicesAreNotWritten() throws Exception {
        TestCache cache = TestCache.standard(1);
        byte[] before = Files.readAllBytes(cache.devices.get(0));
        FileTime modified = Files.getLastModifiedTime(cache.devices.get(0));

        for (String subcommand : new String[] {"info", "list", "stats", "verify"}) {
            assertEquals(0, CommandRun.of(cache.args(subcommand)).exitCode(), subcommand);
        }
        assertEquals(0, CommandRun.of(cache.args("verify", "--data", "--progress")).exitCode());

        assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(cache.devices.get(0))));
        assertEquals(modified, Files.getLastModifiedTime(cache.devices.get(0)));
    }
}

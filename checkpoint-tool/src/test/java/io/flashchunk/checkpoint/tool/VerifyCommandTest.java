package io.flashchunk.checkpoint.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
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
        assertTrue(run.out().startsWith("checked: 1 device(s), 1 valid superblock(s), 2 checkpoint area(s) "
                + "(1 valid, 1 empty, 0 invalid), 7 entries\n"), run.out());
        assertTrue(run.out().endsWith("result: OK, no problems found\n"), run.out());
        assertFalse(run.out().contains("problem:"), "an empty area is not a problem: " + run.out());
    }

    @Test
    void dataVerificationReadsEveryChunkAndShowsProgress() throws Exception {
        TestCache cache = TestCache.standard(2);

        CommandRun run = CommandRun.of(cache.args("verify", "--data", "--progress"));

        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("7 entries, 7 chunk(s) read back (0 corrupt, 0 stale, 0 unreadable)"), run.out());
        assertTrue(run.err().contains("\r[" + "#".repeat(30) + "] 100% 7/7 chunks"), run.err());
        assertTrue(run.err().contains("\r[" + " ".repeat(30) + "] 0% 0/7 chunks"), run.err());
        assertTrue(run.err().endsWith("\n"), "the bar's line is ended");
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
        cache.fill(List.of(TestCache.chunk(cache.dataFile("nb-3-big-Data.db"), 0, TestCache.CHUNK)));
        JsonNode device = JsonRun.of(0, cache.args("info")).get("devices").get(0);
        assertEquals("B", device.get("recoveryArea").textValue());
        JsonNode areaB = device.get("areas").get(1);
        long fileTableBytes = areaB.get("bodyBytes").longValue() - 20 * areaB.get("entries").longValue();
        long areaStart = 1 + device.get("superblock").get("areaBlocks").longValue(); // area B
        // Inside the third entry's location: the entries checksum is the only thing that can notice.
        TestCache.flipByte(cache.devices.get(0), areaStart * BLOCK + BLOCK + fileTableBytes + 2 * 20 + 9);

        CommandRun run = CommandRun.of(cache.args("verify"));
        JsonNode json = JsonRun.of(1, cache.args("verify"));
        JsonNode after = JsonRun.of(0, cache.args("info")).get("devices").get(0);

        assertEquals(1, run.exitCode(), run.out());
        assertTrue(run.out().contains("problem: " + cache.devices.get(0)
                + " checkpoint area B: entries checksum mismatch (torn or corrupt checkpoint)\n"), run.out());
        assertTrue(run.out().endsWith("result: 1 problem found\n"), run.out());
        assertFalse(json.get("ok").booleanValue());
        assertEquals(1, json.get("problems").size());
        JsonNode problem = json.get("problems").get(0);
        assertEquals("area", problem.get("kind").textValue());
        assertEquals("B", problem.get("area").textValue());
        assertEquals(cache.devices.get(0).toString(), problem.get("device").textValue());
        assertEquals(1, json.get("areas").get("invalid").longValue());
        assertEquals(1, json.get("areas").get("valid").longValue());

        assertEquals("invalid", after.get("areas").get(1).get("state").textValue());
        assertEquals(2, after.get("areas").get(1).get("sequence").longValue(), "the header is fine, the body is not");
        assertEquals("A", after.get("recoveryArea").textValue(), "recovery falls back to the older area");
    }

    @Test
    void aFlippedByteInTheFileTableIsAProblem() throws Exception {
        TestCache cache = TestCache.standard(1);
        TestCache.flipByte(cache.devices.get(0), 1L * BLOCK + BLOCK + 40); // area A's body starts with the file table

        CommandRun run = CommandRun.of(cache.args("verify"));

        assertEquals(1, run.exitCode(), run.out());
        assertTrue(run.out().contains("checkpoint area A: file table checksum mismatch"), run.out());
    }

    @Test
    void aTornHeaderIsAProblem() throws Exception {
        TestCache cache = TestCache.standard(1);
        TestCache.flipByte(cache.devices.get(0), 1L * BLOCK + 33); // area A's header: the sequence

        CommandRun run = CommandRun.of(cache.args("verify"));

        assertEquals(1, run.exitCode(), run.out());
        assertTrue(run.out().contains("checkpoint area A: checkpoint header checksum mismatch (torn or corrupt)"),
                run.out());
    }

    @Test
    void aCorruptChunkFailsDataVerificationOnly() throws Exception {
        TestCache cache = TestCache.standard(1);
        JsonNode victim = JsonRun.of(0, cache.args("list", "--file", "nb-1-")).get(1);
        long lba = victim.get("lba").longValue();
        TestCache.flipByte(cache.devices.get(0), lba * BLOCK + 1000);

        CommandRun plain = CommandRun.of(cache.args("verify"));
        CommandRun data = CommandRun.of(cache.args("verify", "--data"));
        JsonNode json = JsonRun.of(1, cache.args("verify", "--data"));

        assertEquals(0, plain.exitCode(), "the checkpoint itself is sound: " + plain.out());
        assertEquals(1, data.exitCode(), data.out());
        assertTrue(data.out().contains("problem: " + cache.devices.get(0) + ": chunk at space 0 LBA " + lba + ", "
                + victim.get("file").textValue() + " at " + victim.get("position").longValue()
                + " (16384 bytes): CRC32C mismatch: the checkpoint records " + victim.get("crc").textValue()
                + ", the device holds "), data.out());
        assertTrue(data.out().contains("7 chunk(s) read back (1 corrupt, 0 stale, 0 unreadable)"), data.out());
        assertEquals(7, json.get("checkedChunks").longValue());
        assertEquals(1, json.get("corruptChunks").longValue());
        assertEquals("chunk", json.get("problems").get(0).get("kind").textValue());
    }

    @Test
    void aByteFlippedPastTheChunkButInsideItsRunIsNotChecked() throws Exception {
        TestCache cache = TestCache.standard(1);
        JsonNode shortChunk = JsonRun.of(0, cache.args("list", "--file", "nb-2-")).get(1); // 10000 bytes, 16K run
        assertEquals(10000, shortChunk.get("length").intValue());
        TestCache.flipByte(cache.devices.get(0), shortChunk.get("lba").longValue() * BLOCK + 12000);

        assertEquals(0, CommandRun.of(cache.args("verify", "--data")).exitCode(),
                "the CRC covers the chunk's length, not its run");
    }

    @Test
    void aMismatchOfAChangedFileIsStaleNotAProblem() throws Exception {
        TestCache cache = TestCache.standard(1);
        JsonNode victim = JsonRun.of(0, cache.args("list", "--file", "nb-1-")).get(0);
        TestCache.flipByte(cache.devices.get(0), victim.get("lba").longValue() * BLOCK + 5);
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
    void twoDevicesInTheWrongOrderAreAProblem() throws Exception {
        TestCache cache = TestCache.standard(2);

        CommandRun run = CommandRun.of("verify", cache.devices.get(1).toString(), cache.devices.get(0).toString());
        CommandRun one = CommandRun.of("verify", cache.devices.get(1).toString());

        assertEquals(1, run.exitCode(), run.out());
        assertTrue(run.out().contains("problem: " + cache.devices.get(1)
                + ": holds address space 1, but was given as device 0"), run.out());
        assertEquals(1, one.exitCode(), one.out());
        assertTrue(one.out().contains(cache.devices.get(1) + ": belongs to a cache of 2 device(s), but 1 were given"),
                one.out());
    }

    @Test
    void aBlankDeviceIsAProblem() throws Exception {
        TestCache cache = new TestCache(1);

        CommandRun run = CommandRun.of(cache.args("verify"));

        assertEquals(1, run.exitCode(), run.out());
        assertTrue(run.out().contains("problem: " + cache.devices.get(0) + ": blank superblock"), run.out());
    }

    @Test
    void aCorruptSuperblockIsAProblem() throws Exception {
        TestCache cache = TestCache.standard(2);
        TestCache.flipByte(cache.devices.get(1), 0); // the magic

        JsonNode json = JsonRun.of(1, cache.args("verify"));

        assertEquals(1, json.get("validSuperblocks").longValue());
        JsonNode problem = json.get("problems").get(0);
        assertEquals("superblock", problem.get("kind").textValue());
        assertTrue(problem.get("message").textValue().startsWith(cache.devices.get(1) + ": no FlashChunk superblock"),
                problem.toString());
    }

    @Test
    void aFormattedCacheWithoutCheckpointIsSoundWithANote() throws Exception {
        TestCache cache = new TestCache(1);
        cache.fill(List.of()); // formats, then closes with a checkpoint of nothing
        // Wipe the checkpoint's header, as a crash in the middle of the first checkpoint would leave it.
        try (RandomAccessFile device = new RandomAccessFile(cache.devices.get(0).toFile(), "rw")) {
            device.seek(BLOCK);
            device.write(new byte[BLOCK]);
        }

        CommandRun run = CommandRun.of(cache.args("verify", "--data"));

        assertEquals(0, run.exitCode(), run.out());
        assertTrue(run.out().contains("note: " + cache.devices.get(0) + ": no checkpoint written yet"), run.out());
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
            CommandRun.of(cache.args(subcommand));
        }
        CommandRun.of(cache.args("verify", "--data", "--progress"));

        assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(cache.devices.get(0))));
        assertEquals(modified, Files.getLastModifiedTime(cache.devices.get(0)));
    }
}

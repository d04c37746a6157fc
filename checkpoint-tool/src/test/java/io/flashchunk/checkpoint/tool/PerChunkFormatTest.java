package io.flashchunk.checkpoint.tool;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.format.CheckpointFormat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A device of the removed per-chunk engine (its superblock in block 0) is named by every subcommand
 * that reads the format, with the unusable-device exit code, and is never written.
 */
class PerChunkFormatTest {

    @ParameterizedTest
    @ValueSource(strings = {"info", "list", "stats", "verify", "verify --data", "info --json"})
    void isNamedWithANonZeroExitAndNotRead(String command) throws Exception {
        TestCache cache = new TestCache(1);
        Path device = cache.devices.get(0);
        writePerChunkSuperblock(device);
        byte[] before = Files.readAllBytes(device);

        CommandRun run = CommandRun.of(cache.args(command.split(" ")[0], extraOptions(command)));

        assertEquals(ExitCodes.UNUSABLE, run.exitCode(), run.out() + run.err());
        assertEquals("", run.out(), "nothing to report on");
        assertEquals("flashchunk-checkpoint " + command.split(" ")[0] + ": " + device + " holds the per-chunk engine's "
                + "format, which this version no longer reads; the cache reformats it at start (its cached chunks are "
                + "dropped)\n", run.err());
        assertArrayEquals(before, Files.readAllBytes(device), "the device is not written");
    }

    @ParameterizedTest
    @ValueSource(strings = {"info", "list", "stats", "verify"})
    void besideACompactDeviceOnlyThePerChunkOneIsNamed(String subcommand) throws Exception {
        TestCache cache = TestCache.standard(2);
        writePerChunkSuperblock(cache.devices.get(1));

        CommandRun run = CommandRun.of(cache.args(subcommand));

        assertEquals(ExitCodes.UNUSABLE, run.exitCode(), run.out() + run.err());
        assertEquals("", run.out());
        assertEquals(1, run.err().lines().count(), run.err());
        assertTrue(run.err().contains(cache.devices.get(1) + " holds the per-chunk engine's format"), run.err());
        assertFalse(run.err().contains(cache.devices.get(0).toString()), run.err());
    }

    private static String[] extraOptions(String command) {
        String[] words = command.split(" ");
        return java.util.Arrays.copyOfRange(words, 1, words.length);
    }

    /**
     * Block 0 as the per-chunk engine began it: the FlashChunk magic and that engine's superblock
     * version, 1 (written as a number: an old device holds exactly this); the rest zero is enough.
     */
    private static void writePerChunkSuperblock(Path device) throws Exception {
        ByteBuffer block = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        block.putLong(0, CheckpointFormat.SUPERBLOCK_MAGIC).putInt(8, 1);
        try (FileChannel channel = FileChannel.open(device, StandardOpenOption.WRITE)) {
            channel.write(block, 0);
        }
    }
}

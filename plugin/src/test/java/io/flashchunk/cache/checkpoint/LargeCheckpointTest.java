package io.flashchunk.cache.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import io.flashchunk.testing.Scratch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Checkpoint bodies are streamed, not loaded into one buffer: a body over 2 GiB (a space of about
 * 1.7 TB of 16 KiB chunks) is read back whole, and small pieces and segments (every boundary an
 * entry can straddle) give the same entries as the default ones.
 */
class LargeCheckpointTest {
    private static final UUID INSTANCE = UUID.randomUUID();

    @Test
    void aBodyOverTwoGibibytesIsRead() throws Exception {
        long entries = 108_000_000L; // 2,160,000,000 bytes of entries: more than a 2 GiB buffer holds
        assertTrue(entries * CheckpointFormat.ENTRY_BYTES > Integer.MAX_VALUE);
        long dataBlocks = entries + 1_000;
        long deviceBlocks = 1 + 2 * SpaceLayout.areaBlocksFor(dataBlocks) + dataBlocks;
        SpaceLayout layout = SpaceLayout.forDevice(deviceBlocks);
        assertTrue(layout.dataBlocks() >= entries, layout.toString());
        Path file = Scratch.file("large-checkpoint", deviceBlocks * SpaceLayout.BLOCK_SIZE); // sparse
        try {
            writeArea(file, layout, entries);
            AtomicLong progress = new AtomicLong();
            try (BlockDevice device = BlockDevices.open(DeviceSpec.of(file).withEngine(IoEngine.LIBAIO))) {
                CheckpointImage image = CheckpointReader.read(device, layout, 0, INSTANCE, 0, progress::addAndGet);
                assertEquals(entries, image.entryCount());
                assertEquals(entries, image.usedBlocks().cardinality());
                for (long i : new long[] {0, 1, (1 << 20) - 1, 1 << 20, 107_374_182, 107_374_183, entries - 1}) {
                    int entry = (int) i;
                    assertEquals(1, image.fileId(entry));
                    assertEquals((1L << 32) | entry, image.key(entry), "entry " + entry);
                    assertEquals(layout.dataStart() + i, ChunkLocation.lba(image.location(entry)), "entry " + entry);
                    assertEquals(crcOf(entry), image.crc(entry), "entry " + entry);
                }
                assertTrue(progress.get() >= entries * CheckpointFormat.ENTRY_BYTES, "progress " + progress.get());
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void smallPiecesAndSegmentsReadTheSameEntriesAndStillCatchATornBody() throws Exception {
        SpaceLayout layout = SpaceLayout.forDevice(8192);
        Path file = Scratch.file("pieces", 8192L * SpaceLayout.BLOCK_SIZE);
        try {
            int entries = 3_001;
            writeArea(file, layout, entries);
            try (BlockDevice device = BlockDevices.open(DeviceSpec.of(file).withEngine(IoEngine.LIBAIO))) {
                CheckpointImage whole = CheckpointReader.read(device, layout, 0, INSTANCE, 0, null);
                CheckpointImage pieces = CheckpointReader.read(device, layout, 0, INSTANCE, 0, null,
                        CheckpointReader.DEFAULT_TIMEOUT_NANOS, SpaceLayout.BLOCK_SIZE, 8);
                assertEquals(entries, pieces.entryCount());
                for (int i = 0; i < entries; i++) {
                    assertEquals(whole.key(i), pieces.key(i), "entry " + i);
                    assertEquals(whole.location(i), pieces.location(i), "entry " + i);
                    assertEquals(whole.crc(i), pieces.crc(i), "entry " + i);
                }
                assertEquals(whole.files(), pieces.files());

                // One byte of the third piece changed: the entries' checksum, computed while streaming, fails.
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    long at = (layout.areaStart(0) + 1) * SpaceLayout.BLOCK_SIZE + 2L * SpaceLayout.BLOCK_SIZE + 100;
                    channel.write(ByteBuffer.wrap(new byte[] {(byte) 0xA5}), at);
                }
                CheckpointFormatException e = assertThrows(CheckpointFormatException.class, () -> CheckpointReader.read(
                        device, layout, 0, INSTANCE, 0, null, CheckpointReader.DEFAULT_TIMEOUT_NANOS,
                        SpaceLayout.BLOCK_SIZE, 8));
                assertTrue(e.getMessage().contains("entries checksum mismatch"), e.getMessage());
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static int crcOf(long entry) {
        return (int) (entry * 0x9E3779B1L);
    }

    /** Area A: header, one file record, then {@code entries} one-block chunks side by side, streamed to the file. */
    private static void writeArea(Path file, SpaceLayout layout, long entries) throws IOException {
        byte[] path = "/data/ks/t/nb-1-big-Data.db".getBytes(StandardCharsets.UTF_8);
        ByteBuffer table = ByteBuffer.allocate(CheckpointFormat.FILE_RECORD_FIXED_BYTES + path.length)
                .order(ByteOrder.LITTLE_ENDIAN);
        table.putInt(1).putLong(1L << 40).putLong(1_700_000_000_000L).putLong(12).putLong(1).putLong(7)
                .putShort((short) path.length).put(path).flip();
        CRC32C tableCrc = new CRC32C();
        tableCrc.update(table.duplicate());
        CRC32C entriesCrc = new CRC32C();
        long bodyStart = (layout.areaStart(0) + 1) * SpaceLayout.BLOCK_SIZE;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            long at = bodyStart + writeFully(channel, table.duplicate(), bodyStart);
            ByteBuffer batch = ByteBuffer.allocate(CheckpointFormat.ENTRY_BYTES * 400_000).order(ByteOrder.LITTLE_ENDIAN);
            for (long i = 0; i < entries; i++) {
                batch.putInt(1).putInt((int) i)
                        .putLong(ChunkLocation.onFlash(0, layout.dataStart() + i, SpaceLayout.BLOCK_SIZE, 0))
                        .putInt(crcOf(i));
                if (!batch.hasRemaining() || i == entries - 1) {
                    batch.flip();
                    entriesCrc.update(batch.duplicate());
                    at += writeFully(channel, batch, at);
                    batch.clear();
                }
            }
            CheckpointHeader header = new CheckpointHeader(INSTANCE, 0, 1, 1_700_000_000_000L, 2, entries, 1,
                    table.remaining(), (int) entriesCrc.getValue(), (int) tableCrc.getValue());
            writeFully(channel, header.encode(), layout.areaStart(0) * SpaceLayout.BLOCK_SIZE);
        }
    }

    private static long writeFully(FileChannel channel, ByteBuffer bytes, long at) throws IOException {
        long written = 0;
        while (bytes.hasRemaining()) {
            written += channel.write(bytes, at + written);
        }
        return written;
    }
}

package io.flashchunk.cache.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.cache.index.FileIdentity;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import io.flashchunk.testing.Scratch;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every way a checkpoint can be wrong is rejected with a message; a right one reads back exactly. */
class CheckpointReaderTest {
    private static final long DEVICE_BLOCKS = 4096;
    private final SpaceLayout layout = SpaceLayout.forDevice(DEVICE_BLOCKS);
    private Path file;
    private BlockDevice device;

    @BeforeEach
    void open() throws Exception {
        file = Scratch.file("reader", DEVICE_BLOCKS * 4096);
        device = BlockDevices.open(DeviceSpec.of(file).withEngine(IoEngine.LIBAIO));
    }

    @AfterEach
    void close() throws Exception {
        device.close();
        Files.deleteIfExists(file);
    }

    private AreaImage valid() {
        AreaImage image = new AreaImage();
        image.files.add(new AreaImage.File(7, "/data/ks/t/nb-1-big-Data.db", 1 << 20, 1000, 42, 5_000, 7));
        image.files.add(new AreaImage.File(9, "/data/ks/t/nb-2-big-Data.db", 2 << 20, 2000, 43, 6_000, FileIdentity.UNKNOWN));
        long base = layout.dataStart();
        image.entries.add(new AreaImage.Entry(7, 0, ChunkLocation.onFlash(0, base, 16384, 0), 111));
        image.entries.add(new AreaImage.Entry(7, 4, ChunkLocation.onFlash(0, base + 4, 16384, 3), 222));
        image.entries.add(new AreaImage.Entry(9, 16, ChunkLocation.onFlash(0, base + 16, 65536, 0), 333));
        image.entries.add(new AreaImage.Entry(9, 32, ChunkLocation.onFlash(0, base + 8, 5000, 0), 444));
        return image;
    }

    private CheckpointImage read(AreaImage image) throws Exception {
        AreaImage.write(file, layout, 0, image.encode());
        return CheckpointReader.read(device, layout, 0, image.instance, 0, null);
    }

    private void assertRejected(String expected, AreaImage image) throws Exception {
        AreaImage.write(file, layout, 0, image.encode());
        assertRejected(expected, image, bytes -> { });
    }

    private void assertRejected(String expected, AreaImage image, Consumer<byte[]> damage) throws Exception {
        byte[] bytes = image.encode();
        damage.accept(bytes);
        AreaImage.write(file, layout, 0, bytes);
        CheckpointFormatException e = assertThrows(CheckpointFormatException.class,
                () -> CheckpointReader.read(device, layout, 0, image.instance, 0, null));
        assertTrue(e.getMessage().contains(expected), "'" + e.getMessage() + "' lacks '" + expected + "'");
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("area A"), e.getMessage());
    }

    @Test
    void aValidCheckpointReadsBackExactly() throws Exception {
        AreaImage image = valid();
        CheckpointImage read = read(image);
        assertEquals(4, read.entryCount());
        assertEquals(2, read.files().size());
        assertEquals("/data/ks/t/nb-2-big-Data.db", read.files().get(9).path());
        assertEquals(new FileIdentity("/data/ks/t/nb-1-big-Data.db", 1 << 20, 1000, 42, 5_000, 7), read.files().get(7));
        assertEquals(FileIdentity.UNKNOWN, read.files().get(9).generation());
        for (int i = 0; i < 4; i++) {
            AreaImage.Entry expected = image.entries.get(i);
            assertEquals(expected.fileId(), read.fileId(i));
            assertEquals((long) expected.fileId() << 32 | expected.chunkIndex(), read.key(i));
            assertEquals(expected.location(), read.location(i));
            assertEquals(expected.crc(), read.crc(i));
        }
    }

    @Test
    void flippedBytesInAnyPartAreCaught() throws Exception {
        assertRejected("header checksum", valid(), bytes -> bytes[33] ^= 1);
        assertRejected("file table checksum", valid(), bytes -> bytes[4096 + 40] ^= 1);
        assertRejected("entries checksum", valid(), bytes -> bytes[bytes.length - 3] ^= 1);
    }

    @Test
    void aTruncatedCheckpointIsCaught() throws Exception {
        AreaImage image = valid();
        byte[] bytes = image.encode();
        byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 30);
        byte[] zeros = new byte[4096 * 4];
        AreaImage.write(file, layout, 0, zeros);
        AreaImage.write(file, layout, 0, truncated);
        CheckpointFormatException e = assertThrows(CheckpointFormatException.class,
                () -> CheckpointReader.read(device, layout, 0, image.instance, 0, null));
        assertTrue(e.getMessage().contains("checksum"), e.getMessage());
    }

    @Test
    void aNextFileIdBelowOneIsCaught() throws Exception {
        AreaImage empty = new AreaImage(); // no file record whose id could expose it
        for (int next : new int[] {0, -5, Integer.MIN_VALUE}) {
            empty.nextFileId = next;
            assertRejected("next file id " + next + " is not positive", empty);
        }
    }

    @Test
    void wrongMagicVersionInstanceOrSpaceIsCaught() throws Exception {
        assertRejected("no checkpoint header", valid(), bytes -> bytes[0] = 'X');
        // Version 1 file records lack birth times: read as version 2 they would be misparsed.
        for (int version : new int[] {1, 3}) {
            assertRejected("format version " + version + " is not the supported version 2", valid(), bytes -> {
                ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(8, version);
                AreaImage.resealChecksums(bytes);
            });
        }
        AreaImage other = valid();
        AreaImage.write(file, layout, 0, other.encode());
        CheckpointFormatException e = assertThrows(CheckpointFormatException.class,
                () -> CheckpointReader.read(device, layout, 0, java.util.UUID.randomUUID(), 0, null));
        assertTrue(e.getMessage().contains("belongs to cache instance"), e.getMessage());
        e = assertThrows(CheckpointFormatException.class,
                () -> CheckpointReader.read(device, layout, 0, other.instance, 1, null));
        assertTrue(e.getMessage().contains("written for address space 0"), e.getMessage());
    }

    @Test
    void countsLargerThanTheAreaAreCaught() throws Exception {
        assertRejected("does not fit the area", valid(), bytes -> {
            ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putLong(64, 1L << 40);
            AreaImage.resealChecksums(bytes);
        });
    }

    @Test
    void entriesOutsideTheDataAreaOrOverlappingAreCaught() throws Exception {
        AreaImage outside = valid();
        outside.entries.add(new AreaImage.Entry(7, 8, ChunkLocation.onFlash(0, DEVICE_BLOCKS, 4096, 0), 1));
        assertRejected("outside the data area", outside);
        AreaImage inCheckpointArea = valid();
        inCheckpointArea.entries.add(new AreaImage.Entry(7, 8, ChunkLocation.onFlash(0, 1, 4096, 0), 1));
        assertRejected("outside the data area", inCheckpointArea);
        AreaImage unaligned = valid();
        unaligned.entries.add(new AreaImage.Entry(7, 8, ChunkLocation.onFlash(0, layout.dataStart() + 34, 16384, 0), 1));
        assertRejected("not aligned", unaligned);
        AreaImage overlapping = valid();
        overlapping.entries.add(new AreaImage.Entry(7, 8, ChunkLocation.onFlash(0, layout.dataStart() + 20, 4096, 0), 1));
        assertRejected("overlaps", overlapping);
        AreaImage otherSpace = valid();
        otherSpace.entries.add(new AreaImage.Entry(7, 8, ChunkLocation.onFlash(1, layout.dataStart() + 40, 4096, 0), 1));
        assertRejected("not a place in space 0", otherSpace);
        AreaImage pending = valid();
        pending.entries.add(new AreaImage.Entry(7, 8, ChunkLocation.pending(4096), 1));
        assertRejected("not a place in space 0", pending);
    }

    @Test
    void badFileRecordsAreCaught() throws Exception {
        AreaImage unknownFile = valid();
        unknownFile.entries.add(new AreaImage.Entry(8, 1, ChunkLocation.onFlash(0, layout.dataStart() + 40, 4096, 0), 1));
        assertRejected("not in the file table", unknownFile);
        AreaImage duplicate = valid();
        duplicate.files.add(new AreaImage.File(7, "/data/other", 1, 1, 1, 1, 1));
        assertRejected("appears twice", duplicate);
        AreaImage idTooLarge = valid();
        idTooLarge.files.add(new AreaImage.File(500, "/data/other", 1, 1, 1, 1, 1));
        assertRejected("outside 1..99", idTooLarge);
        AreaImage countTooLarge = valid();
        assertRejected("ends inside record", countTooLarge, bytes -> {
            ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(52, 3);
            AreaImage.resealChecksums(bytes);
        });
    }

    @Test
    void superblocksAreCheckedToo() throws Exception {
        Superblock superblock = new Superblock(java.util.UUID.randomUUID(), 0, 1, layout);
        ByteBuffer block = superblock.encode();
        assertEquals(superblock, Superblock.decode(block, "dev"));
        block.put(44, (byte) (block.get(44) ^ 1));
        CheckpointFormatException e = assertThrows(CheckpointFormatException.class, () -> Superblock.decode(block, "dev"));
        assertTrue(e.getMessage().contains("dev: superblock checksum mismatch"), e.getMessage());
        ByteBuffer zero = ByteBuffer.allocate(4096);
        e = assertThrows(CheckpointFormatException.class, () -> Superblock.decode(zero, "dev"));
        assertTrue(e.getMessage().contains("no FlashChunk superblock"), e.getMessage());
    }
}

package io.flashchunk.cache.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RecordFormatTest {
    private static final long KEY = 0x0000_0007_0000_0004L;
    private static final long SEQUENCE = 41;

    private static ByteBuffer chunk(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return ByteBuffer.wrap(bytes);
    }

    @Test
    void aRecordTakesItsHeaderAndChunkRoundedToSectors() {
        assertEquals(64, RecordFormat.recordBytes(1, RecordAddress.MIN_SECTOR_BYTES));
        assertEquals(64, RecordFormat.recordBytes(32, RecordAddress.MIN_SECTOR_BYTES));
        assertEquals(128, RecordFormat.recordBytes(33, RecordAddress.MIN_SECTOR_BYTES));
        assertEquals(512, RecordFormat.recordBytes(480, RecordAddress.MIN_SECTOR_BYTES));
        assertEquals(576, RecordFormat.recordBytes(481, RecordAddress.MIN_SECTOR_BYTES));
        assertEquals(4160, RecordFormat.recordBytes(4096, RecordAddress.MIN_SECTOR_BYTES));
        assertEquals(16448, RecordFormat.recordBytes(16384, RecordAddress.MIN_SECTOR_BYTES));
        assertThrows(IllegalArgumentException.class, () -> RecordFormat.recordBytes(0, RecordAddress.MIN_SECTOR_BYTES));
    }

    @Test
    void readsBackEveryChunkWrittenInASegment() throws Exception {
        ByteBuffer segment = ByteBuffer.allocateDirect(1 << 16);
        int[] lengths = {16384, 100, 4096, 20000, 7};
        int[] offsets = new int[lengths.length];
        int at = 0;
        for (int i = 0; i < lengths.length; i++) {
            offsets[i] = at;
            ByteBuffer chunk = chunk(lengths[i], i);
            at += RecordFormat.write(segment, at, KEY + i, SEQUENCE, chunk, RecordAddress.MIN_SECTOR_BYTES);
            assertEquals(0, chunk.position(), "the chunk's position is left alone");
        }
        for (int i = 0; i < lengths.length; i++) {
            assertEquals(chunk(lengths[i], i), RecordFormat.check(segment, offsets[i], KEY + i, SEQUENCE), "record " + i);
        }
        assertEquals(0, segment.get(offsets[1] + RecordFormat.HEADER_BYTES + 100), "padding is zeroed");
    }

    @Test
    void refusesARecordOfAnotherKeyOrSegmentUseOrDamaged() {
        ByteBuffer segment = ByteBuffer.allocate(8192);
        RecordFormat.write(segment, 512, KEY, SEQUENCE, chunk(4096, 1), RecordAddress.MIN_SECTOR_BYTES);
        assertMismatch("of key", segment, 512, KEY + 1, SEQUENCE);
        assertMismatch("sequence 41, not 42", segment, 512, KEY, SEQUENCE + 1);
        assertMismatch("no record at 0", segment, 0, KEY, SEQUENCE);

        ByteBuffer chunkFlipped = copy(segment);
        chunkFlipped.put(512 + RecordFormat.HEADER_BYTES + 4000, (byte) (chunkFlipped.get(512 + RecordFormat.HEADER_BYTES + 4000) ^ 1));
        assertMismatch("chunk of the record at 512 fails", chunkFlipped, 512, KEY, SEQUENCE);

        ByteBuffer lengthChanged = copy(segment);
        lengthChanged.put(512 + 4, (byte) 1);
        assertMismatch("header at 512 fails", lengthChanged, 512, KEY, SEQUENCE);

        ByteBuffer shortRead = copy(segment).limit(512 + 2048);
        assertMismatch("says 4096 bytes", shortRead, 512, KEY, SEQUENCE);
    }

    @Test
    void refusesToWriteARecordPastTheSegmentOrOffASectorBoundary() {
        ByteBuffer segment = ByteBuffer.allocate(8192);
        assertThrows(IllegalArgumentException.class, () -> RecordFormat.write(segment, 4096, KEY, SEQUENCE, chunk(4096, 1), RecordAddress.MIN_SECTOR_BYTES));
        assertThrows(IllegalArgumentException.class, () -> RecordFormat.write(segment, 100, KEY, SEQUENCE, chunk(10, 1), RecordAddress.MIN_SECTOR_BYTES));
    }

    private static ByteBuffer copy(ByteBuffer from) {
        ByteBuffer to = ByteBuffer.allocate(from.capacity());
        to.put(from.duplicate().clear()).clear();
        return to;
    }

    private static void assertMismatch(String expected, ByteBuffer bytes, int at, long key, long sequence) {
        RecordMismatchException e = assertThrows(RecordMismatchException.class,
                () -> RecordFormat.check(bytes, at, key, sequence));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}

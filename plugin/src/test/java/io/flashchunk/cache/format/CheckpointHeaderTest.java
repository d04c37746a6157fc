package io.flashchunk.cache.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CheckpointHeaderTest {
    private static final long CAPACITY = 1 << 20;

    private static CheckpointHeader header(int segments, long fileTableBytes, long entries) {
        return new CheckpointHeader(UUID.randomUUID(), 2, 9, 1234, 40, 3, fileTableBytes, segments, 1 << 20,
                1L << 30, entries, 77, 0x1234_5678, true);
    }

    private static String refused(ByteBuffer block) {
        return refused(block, CAPACITY);
    }

    private static String refused(ByteBuffer block, long capacity) {
        return assertThrows(CheckpointFormatException.class,
                () -> CheckpointHeader.decode(block, capacity, "dev area A")).getMessage();
    }

    @Test
    void decodesWhatItEncodes() throws Exception {
        CheckpointHeader header = header(100, 500, 1000);
        assertEquals(header, CheckpointHeader.decode(header.encode(), CAPACITY, "dev"));
        assertEquals(100 * 8 + 500 + 1000 * 12, header.bodyBytes());
        CheckpointHeader fuzzy = new CheckpointHeader(header.instance(), 2, 9, 1234, 40, 3, 500, 100,
                1 << 20, 1L << 30, 1000, 77, 0x1234_5678, false);
        assertEquals(fuzzy, CheckpointHeader.decode(fuzzy.encode(), CAPACITY, "dev"), "a copy made while the index changed");
        ByteBuffer older = header.encode().order(ByteOrder.LITTLE_ENDIAN);
        older.putInt(8, 2); // the version before the flag: read, as a copy not known to be exact
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(older.duplicate().position(0).limit(108));
        older.putInt(108, (int) crc.getValue());
        assertEquals(fuzzy, CheckpointHeader.decode(older, CAPACITY, "dev"));
    }

    @Test
    void refusesAHeaderThatIsNotOneOrIsDamaged() {
        ByteBuffer other = header(1, 1, 1).encode();
        other.order(ByteOrder.LITTLE_ENDIAN).putLong(0, 0x464C4348_43505F31L); // the removed per-chunk engine's header
        assertTrue(refused(other).contains("no compact checkpoint header"), refused(other));
        ByteBuffer torn = header(1, 1, 1).encode();
        torn.put(40, (byte) 1);
        assertTrue(refused(torn).contains("checksum mismatch"), refused(torn));
        ByteBuffer version = header(1, 1, 1).encode();
        version.order(ByteOrder.LITTLE_ENDIAN).putInt(8, 1); // the format of 512-byte record units
        assertTrue(refused(version).contains("version 1"), refused(version));
    }

    @Test
    void refusesCountsTheAreaCannotHold() {
        assertTrue(refused(header(1, 1, CAPACITY / 12 + 1).encode()).contains("does not fit the area"));
        assertTrue(refused(header(1, 1, Long.MAX_VALUE / 2).encode()).contains("does not fit the area"));
        assertTrue(refused(header(-1, 1, 1).encode()).contains("does not fit the area"));
        assertTrue(refused(header(1, -5, 1).encode()).contains("does not fit the area"));
        assertTrue(refused(header(CAPACITY_SEGMENTS, 1, 1).encode()).contains("does not fit the area"));
        String bigTable = refused(new CheckpointHeader(UUID.randomUUID(), 2, 9, 1234, 40, 3,
                CheckpointHeader.MAX_FILE_TABLE_BYTES + 1, 1, 4096, 2, 0, 77, 0, true).encode(), Long.MAX_VALUE);
        assertTrue(bigTable.contains("more than a checkpoint holds"), bigTable);
        String manyFiles = refused(new CheckpointHeader(UUID.randomUUID(), 2, 9, 1234, 40, 1000, 100, 1, 4096, 2,
                0, 77, 0, true).encode());
        assertTrue(manyFiles.contains("1000 files in 100 bytes"), manyFiles);
        String nearOverflow = refused(new CheckpointHeader(UUID.randomUUID(), 2, Long.MAX_VALUE - 1, 1234, 40, 0,
                0, 1, 4096, 2, 0, 77, 0, true).encode());
        assertTrue(nearOverflow.contains("is beyond"), nearOverflow);
        CheckpointHeader noSequence = new CheckpointHeader(UUID.randomUUID(), 0, 0, 1, 1, 0, 0, 1, 4096,
                2, 0, 1, 0, true);
        assertTrue(refused(noSequence.encode()).contains("sequence 0"));
    }

    private static final int CAPACITY_SEGMENTS = (int) (CAPACITY / 8 + 1);
}

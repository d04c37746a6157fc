package io.flashchunk.cache.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DeltaHeaderTest {
    private static final long CAPACITY = 1 << 20;

    private static DeltaHeader delta(long sequence, long base, int position, int segments, long changes,
                                     long forgotten, long fileTableBytes) {
        return delta(sequence, base, position, segments, changes, forgotten, 0, fileTableBytes);
    }

    private static DeltaHeader delta(long sequence, long base, int position, int segments, long changes,
                                     long forgotten, long ahead, long fileTableBytes) {
        return new DeltaHeader(UUID.randomUUID(), 1, sequence, base, position, 1234, 40, 0, fileTableBytes, segments,
                1 << 20, changes, forgotten, ahead, 77, 0x1234_5678);
    }

    private static String refused(ByteBuffer block) {
        return assertThrows(CheckpointFormatException.class,
                () -> DeltaHeader.decode(block, CAPACITY, "dev area A delta 1")).getMessage();
    }

    @Test
    void decodesWhatItEncodes() throws Exception {
        DeltaHeader header = delta(12, 9, 3, 100, 7, 5, 3, 500);
        assertEquals(header, DeltaHeader.decode(header.encode(), CAPACITY, "dev"));
        assertEquals(7 * 20 + 5 * 20 + 3 * 16 + 500, header.bodyBytes());
        assertEquals(2, header.blocks(), "a header block and one of body");
    }

    @Test
    void refusesWhatIsNotADeltaOrIsDamaged() {
        ByteBuffer full = delta(12, 9, 1, 1, 0, 0, 0).encode();
        full.order(ByteOrder.LITTLE_ENDIAN).putLong(0, CheckpointHeader.MAGIC); // a full checkpoint's header
        assertTrue(refused(full).contains("no checkpoint delta"), refused(full));
        ByteBuffer zeros = ByteBuffer.allocate(4096);
        CheckpointFormatException empty = assertThrows(CheckpointFormatException.class,
                () -> DeltaHeader.decode(zeros, CAPACITY, "dev"));
        assertTrue(empty.emptyArea(), "nothing written there: the chain's end, not a problem");
        ByteBuffer torn = delta(12, 9, 1, 1, 0, 0, 0).encode();
        torn.put(40, (byte) 1);
        assertTrue(refused(torn).contains("checksum mismatch"), refused(torn));
        ByteBuffer version = delta(12, 9, 1, 1, 0, 0, 0).encode();
        version.order(ByteOrder.LITTLE_ENDIAN).putInt(8, 2);
        assertTrue(refused(version).contains("version 2"), refused(version));
    }

    @Test
    void refusesCountsAndSequencesNoWriterMakes() {
        assertTrue(refused(delta(9, 9, 1, 1, 0, 0, 0).encode()).contains("a sequence after its base"));
        assertTrue(refused(delta(12, 0, 1, 1, 0, 0, 0).encode()).contains("a base and position of at least 1"));
        assertTrue(refused(delta(12, 9, 0, 1, 0, 0, 0).encode()).contains("a base and position of at least 1"));
        assertTrue(refused(delta(12, 9, 1, 10, 11, 0, 0).encode()).contains("does not fit"), "more changes than segments");
        assertTrue(refused(delta(12, 9, 1, 400, 101, 0, 0).encode()).contains("more than a delta names"),
                "more than a quarter of the segments");
        assertTrue(refused(delta(12, 9, 1, 10, 0, DeltaHeader.MAX_FORGOTTEN + 1, 0).encode()).contains("does not fit"));
        assertTrue(refused(delta(12, 9, 1, 10, 0, Long.MAX_VALUE / 4, 0).encode()).contains("does not fit"));
        assertTrue(refused(delta(12, 9, 1, 10, 0, 0, DeltaHeader.maxAhead(1 << 20) + 1, 0).encode())
                .contains("more than a delta names"), "more records than two segments hold");
        assertTrue(refused(delta(12, 9, 1, 10, 0, 0, -1).encode()).contains("does not fit"));
        assertTrue(refused(delta(12, 9, 1, 10, 0, 0, CAPACITY + 1).encode()).contains("does not fit"));
        assertTrue(refused(delta(Long.MAX_VALUE - 1, 9, 1, 10, 0, 0, 0).encode()).contains("is beyond"));
    }
}

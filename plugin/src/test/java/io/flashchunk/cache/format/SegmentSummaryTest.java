package io.flashchunk.cache.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class SegmentSummaryTest {
    private static final int SEGMENT = 1 << 20;

    private static SegmentSummary summary(int count, long sequence) {
        long[] keys = new long[count];
        int[] sectors = new int[count];
        int[] lengths = new int[count];
        for (int i = 0; i < count; i++) {
            keys[i] = (long) (i + 1) << 32 | i;
            sectors[i] = 33 * i;
            lengths[i] = 16384 - i;
        }
        return new SegmentSummary(sequence, keys, sectors, lengths);
    }

    /** The segment's last {@code bytes} bytes, as a reclaim reads them. */
    private static ByteBuffer tail(ByteBuffer segment, int bytes) {
        return segment.duplicate().clear().position(SEGMENT - bytes).slice();
    }

    @Test
    void readsBackWhatTheSegmentEndHolds() throws Exception {
        ByteBuffer segment = ByteBuffer.allocateDirect(SEGMENT);
        SegmentSummary written = summary(1000, 7);
        written.write(segment);
        assertEquals(SegmentSummary.bytes(1000), SegmentSummary.bytesAtEnd(tail(segment, 4096)));
        SegmentSummary read = SegmentSummary.read(tail(segment, SegmentSummary.bytes(1000)), 7);
        assertArrayEquals(written.keys(), read.keys());
        assertArrayEquals(written.sectors(), read.sectors());
        assertArrayEquals(written.lengths(), read.lengths());
        assertEquals(0, SegmentSummary.read(tail(segmentWith(summary(0, 3)), 512), 3).count());
    }

    @Test
    void refusesASummaryOfAnotherUseDamagedOrShortOrAbsent() {
        ByteBuffer segment = segmentWith(summary(100, 7));
        int bytes = SegmentSummary.bytes(100);
        assertMismatch("of sequence 7, not 8", tail(segment, bytes), 8);
        assertMismatch("needs " + bytes + " bytes; 512 were read", tail(segment, 512), 7);
        segment.put(SEGMENT - bytes + 3, (byte) 1);
        assertMismatch("entries fail their CRC32C", tail(segment, bytes), 7);
        segment.put(SEGMENT - 20, (byte) 1);
        assertMismatch("trailer fails its CRC32C", tail(segment, bytes), 7);
        assertMismatch("no segment summary trailer", tail(ByteBuffer.allocate(SEGMENT), 4096), 7);
    }

    @Test
    void refusesASummaryThatDoesNotFit() {
        assertThrows(IllegalArgumentException.class, () -> summary(1000, 1).write(ByteBuffer.allocate(4096)));
        assertThrows(IllegalArgumentException.class, () -> new SegmentSummary(1, new long[2], new int[2], new int[1]));
    }

    private static ByteBuffer segmentWith(SegmentSummary summary) {
        ByteBuffer segment = ByteBuffer.allocate(SEGMENT);
        summary.write(segment);
        return segment;
    }

    private static void assertMismatch(String expected, ByteBuffer tail, long sequence) {
        RecordMismatchException e = assertThrows(RecordMismatchException.class, () -> SegmentSummary.read(tail, sequence));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}

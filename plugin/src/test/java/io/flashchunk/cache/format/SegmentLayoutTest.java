package io.flashchunk.cache.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SegmentLayoutTest {
    @Test
    void namesTheSegmentAndPlaceOfEveryAddressItMakes() {
        SegmentLayout layout = SegmentLayout.of(1 << 20, 1 << 20, 10L << 20, RecordAddress.MIN_SECTOR_BYTES);
        assertEquals(9, layout.segments());
        assertEquals(256 + 3 * 256, layout.lba(3));
        long address = layout.address(2, 3, 40);
        assertEquals(2, RecordAddress.space(address));
        assertEquals(3, layout.index(address));
        assertEquals(40, layout.sectorInSegment(address));
        assertTrue(layout.contains(address));
        assertFalse(layout.contains(RecordAddress.of(0, 1)), "the reserved region");
        int lastSector = (1 << 20) / RecordAddress.MIN_SECTOR_BYTES - 1;
        assertFalse(layout.contains(layout.address(0, 8, lastSector) + 1), "past the last segment");
    }

    @Test
    void refusesGeometryThatDoesNotFit() {
        assertThrows(IllegalArgumentException.class, () -> SegmentLayout.of(1 << 20, 1 << 20, 1 << 20, RecordAddress.MIN_SECTOR_BYTES));
        assertThrows(IllegalArgumentException.class, () -> new SegmentLayout(0, 1 << 20, 1, RecordAddress.MIN_SECTOR_BYTES));
        assertThrows(IllegalArgumentException.class, () -> new SegmentLayout(4096, 1000, 1, RecordAddress.MIN_SECTOR_BYTES));
        assertThrows(IllegalArgumentException.class, () -> new SegmentLayout(4096, 1 << 24, 1 << 18, RecordAddress.MIN_SECTOR_BYTES));
    }
}

package io.flashchunk.cache.space;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.format.CheckpointAreas;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.testing.MemoryDevice;
import java.util.List;
import org.junit.jupiter.api.Test;

class AddressSpacesTest {
    private static final CheckpointAreas AREAS = new CheckpointAreas(1, 128, 126L * 4096);

    private static AddressSpace space(int number, int segmentBytes, int segments) {
        long first = 1 << 20;
        MemoryDevice device = MemoryDevice.blank("dev" + number, (first + (long) segments * segmentBytes) / 4096, 4);
        return new AddressSpace(number, new StorageDriver(device, 1, 1_000_000_000L),
                SegmentLayout.of(first, segmentBytes, device.capacityBlocks() * 4096, RecordAddress.MIN_SECTOR_BYTES), AREAS);
    }

    @Test
    void spacesAreNumberedInOrderAndShareOneSegmentSize() {
        AddressSpaces spaces = new AddressSpaces(List.of(space(0, 65536, 3), space(1, 65536, 5)));
        assertEquals(2, spaces.count());
        assertEquals(65536, spaces.segmentBytes());
        assertArrayEquals(new int[] {3, 5}, spaces.segmentsPerSpace());
        assertEquals("dev1", spaces.driver(1).path());

        IllegalArgumentException outOfOrder = assertThrows(IllegalArgumentException.class,
                () -> new AddressSpaces(List.of(space(1, 65536, 3), space(0, 65536, 3))));
        assertTrue(outOfOrder.getMessage().contains("address space 1 in place 0"), outOfOrder.getMessage());
        IllegalArgumentException sizes = assertThrows(IllegalArgumentException.class,
                () -> new AddressSpaces(List.of(space(0, 65536, 3), space(1, 131072, 3))));
        assertTrue(sizes.getMessage().contains("131072 bytes in space 1"), sizes.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new AddressSpaces(List.of()));
    }

    @Test
    void aSummaryThatIsNotThereIsNull() {
        AddressSpaces spaces = new AddressSpaces(List.of(space(0, 65536, 3)));
        SegmentTable table = new SegmentTable(3);
        // a blank device: the segment's end holds no summary of any use
        assertNull(spaces.summaryOrNull(table, 0));
    }
}

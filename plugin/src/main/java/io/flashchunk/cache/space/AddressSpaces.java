package io.flashchunk.cache.space;

import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.format.SegmentSummary;
import java.io.IOException;
import java.util.List;

/**
 * The cache's address spaces, numbered from 0 in the order of its devices, all with segments of one
 * size (a segment buffer holds any of them). Immutable.
 */
public final class AddressSpaces {
    private final AddressSpace[] spaces;
    private final int segmentBytes;

    public AddressSpaces(List<AddressSpace> spaces) {
        if (spaces.isEmpty() || spaces.size() > RecordAddress.MAX_SPACES) {
            throw new IllegalArgumentException(spaces.size() + " address spaces; 1.." + RecordAddress.MAX_SPACES
                    + " are possible");
        }
        this.spaces = spaces.toArray(AddressSpace[]::new);
        this.segmentBytes = this.spaces[0].layout().segmentBytes();
        for (int i = 0; i < this.spaces.length; i++) {
            AddressSpace space = this.spaces[i];
            if (space.number() != i) {
                throw new IllegalArgumentException("address space " + space.number() + " in place " + i);
            }
            if (space.layout().segmentBytes() != segmentBytes) {
                throw new IllegalArgumentException("segments of " + space.layout().segmentBytes() + " bytes in space "
                        + i + " and of " + segmentBytes + " in space 0");
            }
        }
    }

    public int count() {
        return spaces.length;
    }

    public AddressSpace get(int space) {
        return spaces[space];
    }

    public StorageDriver driver(int space) {
        return spaces[space].driver();
    }

    public SegmentLayout layout(int space) {
        return spaces[space].layout();
    }

    /** The size of every segment of every space. */
    public int segmentBytes() {
        return segmentBytes;
    }

    /** How many segments each space holds, in space order (a {@link SegmentTable}'s shape). */
    public int[] segmentsPerSpace() {
        int[] segments = new int[spaces.length];
        for (int i = 0; i < spaces.length; i++) {
            segments[i] = spaces[i].layout().segments();
        }
        return segments;
    }

    /** The summary of {@code segment}'s current use, read from its space's device. */
    public SegmentSummary summaryOf(SegmentTable table, int segment) throws IOException, RecordMismatchException {
        return spaces[table.space(segment)].readSummary(table.index(segment), table.sequence(segment));
    }

    /** As {@link #summaryOf}, or null when it cannot be read or does not check. */
    public SegmentSummary summaryOrNull(SegmentTable table, int segment) {
        try {
            return summaryOf(table, segment);
        } catch (IOException | RecordMismatchException e) {
            return null;
        }
    }
}

package io.flashchunk.cache.space;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.format.SegmentSummary;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Reads the summary at the end of a written segment: what the writer reclaiming a segment and the
 * checkpoint tool listing one both need, read the one way.
 */
public final class SegmentSummaries {
    private SegmentSummaries() {
    }

    /**
     * The summary of use {@code sequence} of segment {@code indexInSpace} of {@code layout}'s space on
     * {@code driver}.
     *
     * @throws RecordMismatchException when the segment's end holds no summary of that use, or one
     *         naming a record that cannot be in the segment
     * @throws IOException when the device failed or did not answer in time (a timed-out read's buffer
     *         is left to the device)
     */
    public static SegmentSummary read(StorageDriver driver, SegmentLayout layout, int indexInSpace, long sequence)
            throws IOException, RecordMismatchException {
        long end = layout.startByte(indexInSpace) + layout.segmentBytes();
        ByteBuffer tail = readTail(driver, end, BlockDevice.BLOCK_SIZE);
        long bytes = SegmentSummary.bytesAtEnd(tail);
        if (bytes > layout.segmentBytes()) {
            throw new RecordMismatchException("segment summary of " + bytes + " bytes is larger than its segment");
        }
        if (bytes > tail.remaining()) {
            tail = readTail(driver, end, (int) ((bytes + BlockDevice.BLOCK_SIZE - 1) / BlockDevice.BLOCK_SIZE
                    * BlockDevice.BLOCK_SIZE));
        }
        SegmentSummary summary = SegmentSummary.read(tail, sequence);
        summary.checkWithin(layout.segmentBytes());
        return summary;
    }

    /** The summary of {@code segment}'s current use, read from its space's device. */
    public static SegmentSummary of(SegmentTable table, SegmentLayout[] layouts, StorageDriver[] drivers, int segment)
            throws IOException, RecordMismatchException {
        int space = table.space(segment);
        return read(drivers[space], layouts[space], table.index(segment), table.sequence(segment));
    }

    /** As {@link #of}, or null when it cannot be read or does not check. */
    public static SegmentSummary orNull(SegmentTable table, SegmentLayout[] layouts, StorageDriver[] drivers,
                                        int segment) {
        try {
            return of(table, layouts, drivers, segment);
        } catch (IOException | RecordMismatchException e) {
            return null;
        }
    }

    /** The last {@code bytes} bytes before {@code endByte}. */
    private static ByteBuffer readTail(StorageDriver driver, long endByte, int bytes) throws IOException {
        ByteBuffer buffer = AlignedBuffers.allocate(bytes);
        driver.await(driver.read((endByte - bytes) / BlockDevice.BLOCK_SIZE, buffer), "summary read");
        return buffer;
    }
}

package io.flashchunk.cache.space;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.format.CheckpointAreas;
import io.flashchunk.cache.format.DeviceLayout;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.format.SegmentSummary;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One of the cache's address spaces (the paper's load-balanced spaces): a device, reached through its
 * driver, with its segments where {@code layout} puts them and its two checkpoint areas where
 * {@code areas} does. Record addresses carry {@code number}.
 */
public final class AddressSpace {
    private final int number;
    private final StorageDriver driver;
    private final SegmentLayout layout;
    private final CheckpointAreas areas;

    public AddressSpace(int number, StorageDriver driver, SegmentLayout layout, CheckpointAreas areas) {
        if (number < 0 || driver == null || layout == null || areas == null) {
            throw new IllegalArgumentException("address space " + number + " needs a driver, a layout and areas");
        }
        this.number = number;
        this.driver = driver;
        this.layout = layout;
        this.areas = areas;
    }

    public int number() {
        return number;
    }

    public StorageDriver driver() {
        return driver;
    }

    public SegmentLayout layout() {
        return layout;
    }

    public CheckpointAreas areas() {
        return areas;
    }

    /** Space {@code number} on {@code driver}'s device, laid out as its superblock's {@code layout} says. */
    public static AddressSpace of(int number, StorageDriver driver, DeviceLayout layout) {
        return new AddressSpace(number, driver, layout.segmentLayout(), layout.areas());
    }

    /**
     * The summary of use {@code sequence} of this space's segment {@code indexInSpace}: what the writer
     * reclaiming a segment and the checkpoint tool listing one both need, read the one way.
     *
     * @throws RecordMismatchException when the segment's end holds no summary of that use, or one
     *         naming a record that cannot be in the segment
     * @throws IOException when the device failed or did not answer in time (a timed-out read's buffer
     *         is left to the device)
     */
    public SegmentSummary readSummary(int indexInSpace, long sequence) throws IOException, RecordMismatchException {
        long end = layout.startByte(indexInSpace) + layout.segmentBytes();
        ByteBuffer tail = readTail(end, BlockDevice.BLOCK_SIZE);
        long bytes = SegmentSummary.bytesAtEnd(tail);
        if (bytes > layout.segmentBytes()) {
            throw new RecordMismatchException("segment summary of " + bytes + " bytes is larger than its segment");
        }
        if (bytes > tail.remaining()) {
            tail = readTail(end, (int) ((bytes + BlockDevice.BLOCK_SIZE - 1) / BlockDevice.BLOCK_SIZE
                    * BlockDevice.BLOCK_SIZE));
        }
        SegmentSummary summary = SegmentSummary.read(tail, sequence);
        summary.checkWithin(layout);
        return summary;
    }

    /** The last {@code bytes} bytes before {@code endByte}. */
    private ByteBuffer readTail(long endByte, int bytes) throws IOException {
        ByteBuffer buffer = AlignedBuffers.allocate(bytes);
        driver.await(driver.read((endByte - bytes) / BlockDevice.BLOCK_SIZE, buffer), "summary read");
        return buffer;
    }

    @Override
    public String toString() {
        return "AddressSpace[number=" + number + ", driver=" + driver + ", layout=" + layout + ", areas=" + areas + "]";
    }
}

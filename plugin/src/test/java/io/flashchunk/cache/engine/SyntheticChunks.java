package io.flashchunk.cache.engine;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.format.SegmentSummary;
import io.flashchunk.cache.index.ChunkLocations;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutionException;
import java.util.function.LongUnaryOperator;

/**
 * Index entries with no bytes behind them, in segments marked written: what benchmarks of
 * checkpoints and recovery need at scale (a checkpoint and recovery never read a chunk's bytes; a
 * recovery from a checkpoint delta reads the changed segments' summaries, which these segments can
 * be given). Only while the engine's writer is idle (nothing offered): it alone changes the index
 * otherwise.
 */
public final class SyntheticChunks {
    private SyntheticChunks() {
    }

    /**
     * Puts {@code entries} keys ({@code keyOf} of 0, 1, ...) into the index of {@code engine}, each at
     * a record address of a {@code chunkBytes} chunk in free segments of space 0, packed as the writer
     * packs them; those segments are then durable. Returns the segments used.
     */
    public static int fill(CacheEngine engine, long entries, int chunkBytes, LongUnaryOperator keyOf) {
        return fill(engine, entries, chunkBytes, keyOf, false);
    }

    /**
     * As above; with {@code summaries}, each segment's summary is written at its end on space 0's
     * device, as the writer writes it, so that recovery can read the segment's chunks from it.
     */
    public static int fill(CacheEngine engine, long entries, int chunkBytes, LongUnaryOperator keyOf,
                           boolean summaries) {
        SegmentTable table = engine.table();
        SegmentLayout layout = engine.start().layouts().get(0).segmentLayout();
        int recordBytes = RecordFormat.recordBytes(chunkBytes, RecordAddress.MIN_SECTOR_BYTES);
        int perSegment = (layout.segmentBytes() - SegmentSummary.bytes(0)) / (recordBytes + SegmentSummary.ENTRY_BYTES);
        int recordSectors = recordBytes / RecordAddress.MIN_SECTOR_BYTES;
        ChunkLocations locations = new ChunkLocations(engine.index());
        long i = 0;
        int segments = 0;
        while (i < entries) {
            int segment = table.open(0);
            if (segment == -1) {
                throw new IllegalStateException("no free segment left after " + i + " of " + entries + " entries");
            }
            int records = (int) Math.min(perSegment, entries - i);
            long[] keys = new long[records];
            int[] sectors = new int[records];
            int[] lengths = new int[records];
            for (int r = 0; r < records; r++, i++) {
                keys[r] = keyOf.applyAsLong(i);
                sectors[r] = r * recordSectors;
                lengths[r] = chunkBytes;
                locations.placed(keys[r], layout.address(0, table.index(segment), sectors[r]));
            }
            if (summaries) {
                writeSummary(engine.spaces().driver(0).device(), layout, table.index(segment),
                        new SegmentSummary(table.sequence(segment), keys, sectors, lengths));
            }
            table.seal(segment);
            table.written(segment);
            segments++;
        }
        return segments;
    }

    private static void writeSummary(BlockDevice device, SegmentLayout layout, int index, SegmentSummary summary) {
        int bytes = (SegmentSummary.bytes(summary.count()) + BlockDevice.BLOCK_SIZE - 1) & -BlockDevice.BLOCK_SIZE;
        ByteBuffer tail = AlignedBuffers.allocate(bytes);
        summary.write(tail);
        long lba = (layout.startByte(index) + layout.segmentBytes() - bytes) / BlockDevice.BLOCK_SIZE;
        try {
            device.write(lba, tail.clear()).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("summary write of segment " + index + " failed", e.getCause());
        }
    }
}

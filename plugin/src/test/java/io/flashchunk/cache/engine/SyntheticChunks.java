package io.flashchunk.cache.engine;

import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.format.SegmentSummary;
import io.flashchunk.cache.index.ChunkLocations;
import io.flashchunk.cache.space.SegmentTable;
import java.util.function.LongUnaryOperator;

/**
 * Index entries with no bytes behind them, in segments marked written: what benchmarks of
 * checkpoints and recovery need at scale (a checkpoint and recovery never read a chunk's bytes).
 * Only while the engine's writer is idle (nothing offered): it alone changes the index otherwise.
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
            for (int r = 0; r < perSegment && i < entries; r++, i++) {
                locations.placed(keyOf.applyAsLong(i), layout.address(0, table.index(segment), r * recordSectors));
            }
            table.seal(segment);
            table.written(segment);
            segments++;
        }
        return segments;
    }
}

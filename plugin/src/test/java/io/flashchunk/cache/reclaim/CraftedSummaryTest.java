package io.flashchunk.cache.reclaim;

import static io.flashchunk.cache.engine.EngineFixture.FIRST_BYTE;
import static io.flashchunk.cache.engine.EngineFixture.PER_SEGMENT;
import static io.flashchunk.cache.engine.EngineFixture.SEGMENT_BYTES;
import static io.flashchunk.cache.engine.EngineFixture.chunk;
import static io.flashchunk.cache.engine.EngineFixture.device;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.checkpoint.Checkpointer;
import io.flashchunk.cache.engine.EngineFixture;
import io.flashchunk.cache.engine.EngineFixture.Order;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.format.SegmentSummary;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.write.WriterPolicy;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.MemoryDevice;
import java.nio.ByteBuffer;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A segment summary whose checksums hold but whose entries name records no segment can hold (bytes
 * crafted, or written by a bug): it is not acted on. Reclaiming the segment takes its chunks out of
 * the index by a scan instead, and the segment is free again.
 */
class CraftedSummaryTest {
    @Test
    void aSummaryNamingAnImpossibleRecordIsRefusedWhenRead() {
        SegmentLayout layout = new SegmentLayout(4096, SEGMENT_BYTES, 1, RecordAddress.MIN_SECTOR_BYTES);
        SegmentSummary impossible = new SegmentSummary(3, new long[] {key(0)}, new int[] {Integer.MIN_VALUE},
                new int[] {16384});
        assertTrue(assertThrows(RecordMismatchException.class, () -> impossible.checkWithin(layout))
                .getMessage().contains("at sector -2147483648"));
        SegmentSummary tooLong = new SegmentSummary(3, new long[] {key(0)}, new int[] {0},
                new int[] {RecordFormat.MAX_CHUNK_BYTES + 1});
        assertThrows(RecordMismatchException.class, () -> tooLong.checkWithin(layout));
        // A record reaching into the summary itself.
        int last = (SEGMENT_BYTES - SegmentSummary.bytes(1)) / RecordAddress.MIN_SECTOR_BYTES - 1;
        assertThrows(RecordMismatchException.class, () -> new SegmentSummary(3, new long[] {key(0)},
                new int[] {last}, new int[] {16384}).checkWithin(layout));
    }

    @Test
    void reclaimingASegmentWhoseSummaryNamesAnImpossibleSectorFreesItAndItsChunks() throws Exception {
        MemoryDevice flash = device("a", 4);
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, new WriterPolicy(null, 0.5), flash);
        Checkpointer checkpointer = engine.checkpointer(UUID.randomUUID());
        for (int i = 0; i < 4 * PER_SEGMENT; i++) {
            assertTrue(engine.segmentWriter.append(key(i), chunk(key(i))));
        }
        engine.segmentWriter.flush();
        for (int i = 0; i < 5; i++) {
            assertEquals(chunk(key(i)), engine.read(key(i)), "read, so kept for reinsertion");
        }
        // Segment 0's summary replaced by one with valid checksums naming sector MIN_VALUE.
        ByteBuffer tail = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE);
        new SegmentSummary(engine.table.sequence(0), new long[] {key(0)}, new int[] {Integer.MIN_VALUE},
                new int[] {16384}).write(tail);
        flash.write((FIRST_BYTE + SEGMENT_BYTES) / BlockDevice.BLOCK_SIZE - 1, tail.clear()).get();

        int next = 4 * PER_SEGMENT;
        assertFalse(engine.segmentWriter.append(key(next), chunk(key(next))), "segment 0 doomed, waiting for a checkpoint");
        checkpointer.checkpoint(EngineFixture.NO_FILES);
        assertTrue(engine.segmentWriter.append(key(next), chunk(key(next))), "segment 0 reclaimed and reused");
        engine.segmentWriter.flush();
        assertEquals(1, engine.segmentWriter.reclaimed());
        assertFalse(engine.table.state(0) == SegmentState.RECLAIMING, "segment 0 is not left reclaiming");
        for (int i = 0; i < PER_SEGMENT; i++) {
            assertEquals(RecordAddress.NONE, engine.index.find(key(i)), "chunk " + i + " of the reclaimed segment "
                    + "left the index");
        }
        assertEquals(chunk(key(next)), engine.read(key(next)));
        assertEquals(0, engine.mismatches);
    }
}

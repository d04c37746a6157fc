package io.flashchunk.cache.reclaim;

import static io.flashchunk.cache.engine.EngineFixture.PER_SEGMENT;
import static io.flashchunk.cache.engine.EngineFixture.SEGMENT_BYTES;
import static io.flashchunk.cache.engine.EngineFixture.chunk;
import static io.flashchunk.cache.engine.EngineFixture.compressible;
import static io.flashchunk.cache.engine.EngineFixture.device;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.admission.VictimAdmission;
import io.flashchunk.cache.engine.EngineFixture;
import io.flashchunk.cache.engine.EngineFixture.Order;
import io.flashchunk.cache.files.ChunkKeys;
import io.flashchunk.cache.format.ChunkCompression;
import io.flashchunk.cache.format.ChunkForm;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.read.SegmentReader;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.index.ChunkLocations;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.write.WriterPolicy;
import io.flashchunk.testing.FaultyDevice;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Chunks read since they were written survive their segment's reclaim, within the share of a segment. */
class ReinsertionTest {
    private static EngineFixture engine(WriterPolicy policy, io.flashchunk.device.BlockDevice device) {
        return new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, policy, device);
    }

    /** Fills the four segments (keys 0..4*PER_SEGMENT-1), reads {@code readKeys} of the first, then makes the writer reclaim it. */
    private static void fillReadAndReclaim(EngineFixture engine, int readKeys) throws Exception {
        for (int i = 0; i < 4 * PER_SEGMENT; i++) {
            assertTrue(engine.writer.append(key(i), chunk(key(i))));
        }
        engine.segmentWriter.flush();
        for (int i = 0; i < readKeys; i++) {
            assertEquals(chunk(key(i)), engine.read(key(i)), "chunk " + i + " on flash");
        }
        int next = 4 * PER_SEGMENT;
        assertTrue(engine.writer.append(key(next), chunk(key(next)))); // reclaims the first segment
        engine.segmentWriter.flush();
    }

    @Test
    void readChunksOfAReclaimedSegmentAreWrittenAgainTheOthersGo() throws Exception {
        EngineFixture engine = engine(new WriterPolicy(null, 0.5), device("a", 4));
        fillReadAndReclaim(engine, 5);
        assertEquals(1, engine.segmentWriter.reclaimed());
        assertEquals(5, engine.segmentWriter.reinserted());
        for (int i = 0; i < 5; i++) {
            assertEquals(chunk(key(i)), engine.read(key(i)), "read chunk " + i + " kept");
        }
        for (int i = 5; i < PER_SEGMENT; i++) {
            assertNull(engine.read(key(i)), "unread chunk " + i + " reclaimed");
        }
        assertEquals(0, engine.mismatches);
    }

    @Test
    void readChunksOfADeadFileAreNotWrittenAgain() throws Exception {
        // Chunks 0-4 read, then their file dies (compacted away) before their segment is reclaimed.
        java.util.concurrent.atomic.AtomicBoolean died = new java.util.concurrent.atomic.AtomicBoolean();
        EngineFixture engine = engine(new WriterPolicy(null, 0.5, 1, null,
                key -> !died.get() || ChunkKeys.fileId(key) != ChunkKeys.fileId(key(0))), device("a", 4));
        assertEquals(ChunkKeys.fileId(key(0)), ChunkKeys.fileId(key(4 * PER_SEGMENT)), "the four segments' chunks share a file");
        for (int i = 0; i < 4 * PER_SEGMENT; i++) {
            assertTrue(engine.writer.append(key(i), chunk(key(i))));
        }
        engine.segmentWriter.flush();
        for (int i = 0; i < 5; i++) {
            assertEquals(chunk(key(i)), engine.read(key(i)), "chunk " + i + " on flash");
        }
        died.set(true);
        assertTrue(engine.writer.append(key(1000), chunk(key(1000)))); // another file's: reclaims the first segment
        assertEquals(1, engine.segmentWriter.reclaimed());
        assertEquals(0, engine.segmentWriter.reinserted(), "a dead file's chunks go with their segment, read or not");
    }

    /**
     * Invalidations around a reclaim: a chunk invalidated while its segment is doomed leaves the
     * index and is not kept; one read back to be kept, and invalidated while it waits for a segment
     * (a read still holds the reclaimed one), is forgotten: neither's old bytes come back.
     */
    @Test
    void aChunkInvalidatedWhileDoomedOrWhileKeptIsNotWrittenAgain() throws Exception {
        // Oldest first: the engine's order would doom segments as they are written; this is the
        // batch doomed when a segment is needed, and the first segment is its victim.
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST,
                new WriterPolicy(null, 0.5), device("a", 4));
        for (int i = 0; i < 4 * PER_SEGMENT; i++) {
            assertTrue(engine.segmentWriter.append(key(i), chunk(key(i))));
        }
        engine.segmentWriter.flush();
        for (int i = 0; i < 5; i++) {
            assertEquals(chunk(key(i)), engine.read(key(i)));
        }
        int next = 4 * PER_SEGMENT;
        // The first segment is doomed and waits for a checkpoint: nothing opens, and it serves on.
        assertFalse(engine.segmentWriter.append(key(next), chunk(key(next))));
        assertTrue(engine.segmentWriter.waitsForCheckpoint(), "a checkpoint would release it");
        assertEquals(0, engine.segmentWriter.reclaimed());
        assertEquals(1, engine.table.waitingForCheckpoint());
        int doomed = engine.firstIn(SegmentState.DOOMED);
        assertEquals(chunk(key(2)), engine.read(key(2)), "a doomed segment's chunk is still served");
        // Chunk 2 changed in its file meanwhile: the engine takes it out of the index and forgets it.
        new ChunkLocations(engine.index).forget(key(2));
        engine.segmentWriter.forget(key(2));
        engine.checkpointer(java.util.UUID.randomUUID()).checkpoint(EngineFixture.NO_FILES);
        // A read in flight holds the segment: reclaimed, its read chunks kept, but nothing opens yet.
        assertTrue(engine.table.pin(doomed) > 0);
        assertFalse(engine.segmentWriter.append(key(next), chunk(key(next))));
        assertFalse(engine.segmentWriter.waitsForCheckpoint(), "a read holds it: a checkpoint would not help");
        assertEquals(1, engine.segmentWriter.reclaimed(), "reclaimed when its space was needed");
        assertNull(engine.read(key(3)), "out of the index with its segment");
        engine.segmentWriter.forget(key(3)); // chunk 3 changed in its file while kept
        engine.table.unpin(doomed);
        assertTrue(engine.segmentWriter.append(key(next), chunk(key(next))));
        assertEquals(3, engine.segmentWriter.reinserted(), "the read chunks but the two invalidated");
        assertNull(engine.read(key(2)), "its old bytes are not put back");
        assertNull(engine.read(key(3)), "nor these");
        for (int i : new int[] {0, 1, 4}) {
            assertEquals(chunk(key(i)), engine.read(key(i)), "chunk " + i + " written again");
        }
        assertNull(engine.read(key(5)), "an unread chunk of the reclaimed segment is gone");
    }

    /** A chunk kept for reinsertion whose file dies before it is written again is not written, nor is a new chunk of it. */
    @Test
    void aKeptChunkWhoseFileDiedMeanwhileIsNotWrittenAgain() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean firstFileDead = new java.util.concurrent.atomic.AtomicBoolean();
        int firstFile = ChunkKeys.fileId(key(0));
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST,
                new WriterPolicy(null, 0.5, 1, null, key -> !(firstFileDead.get() && ChunkKeys.fileId(key) == firstFile)),
                device("a", 4));
        for (int i = 0; i < 4 * PER_SEGMENT; i++) {
            assertTrue(engine.segmentWriter.append(key(i), chunk(key(i))));
        }
        engine.segmentWriter.flush();
        for (int i = 0; i < 5; i++) {
            assertEquals(chunk(key(i)), engine.read(key(i)));
        }
        long next = key(1000); // another file's
        assertFalse(engine.segmentWriter.append(next, chunk(next)), "the first segment is doomed and waits");
        int doomed = engine.firstIn(SegmentState.DOOMED);
        engine.checkpointer(java.util.UUID.randomUUID()).checkpoint(EngineFixture.NO_FILES);
        // A read in flight holds it: reclaimed with its read chunks kept, nothing opens yet.
        assertTrue(engine.table.pin(doomed) > 0);
        assertFalse(engine.segmentWriter.append(next, chunk(next)));
        assertEquals(1, engine.segmentWriter.reclaimed());
        firstFileDead.set(true); // compacted away while its chunks were kept
        engine.table.unpin(doomed);
        assertFalse(engine.segmentWriter.append(key(5), chunk(key(5))), "a dead file's chunk is not appended");
        assertTrue(engine.segmentWriter.append(next, chunk(next)));
        assertEquals(0, engine.segmentWriter.reinserted(), "none of the dead file's kept chunks written again");
        for (int i = 0; i < 5; i++) {
            assertNull(engine.read(key(i)), "chunk " + i);
        }
    }

    @Test
    void theShareBoundsWhatIsKeptAndTheMostReadGoFirst() throws Exception {
        VictimAdmission admission = new VictimAdmission(1 << 10, 1);
        int fit = (int) (0.2 * SEGMENT_BYTES) / RecordFormat.recordBytes(EngineFixture.CHUNK, RecordAddress.MIN_SECTOR_BYTES);
        EngineFixture engine = engine(new WriterPolicy(admission, 0.2), device("a", 4));
        for (int i = PER_SEGMENT - fit; i < PER_SEGMENT; i++) {
            for (int reads = 0; reads < 5; reads++) {
                admission.accessed(key(i)); // the segment's last chunks are the most read lately
            }
        }
        fillReadAndReclaim(engine, PER_SEGMENT);
        assertEquals(fit, engine.segmentWriter.reinserted(), "a fifth of a segment holds " + fit + " chunks");
        for (int i = 0; i < PER_SEGMENT; i++) {
            boolean mostRead = i >= PER_SEGMENT - fit;
            assertEquals(mostRead, engine.read(key(i)) != null, "chunk " + i);
        }
    }

    @Test
    void aChunkThatCannotBeReadBackIsLeftOut() throws Exception {
        FaultyDevice device = new FaultyDevice(device("a", 4));
        EngineFixture engine = engine(new WriterPolicy(null, 0.5), device);
        for (int i = 0; i < 4 * PER_SEGMENT; i++) {
            engine.writer.append(key(i), chunk(key(i)));
        }
        engine.segmentWriter.flush();
        engine.read(key(0));
        engine.read(key(1));
        device.failNth(FaultyDevice.Op.READ, 2); // the summary reads fine, the first chunk's read fails
        engine.writer.append(key(4 * PER_SEGMENT), chunk(key(4 * PER_SEGMENT)));
        engine.segmentWriter.flush();
        assertEquals(1, engine.segmentWriter.reinserted());
        assertNull(engine.read(key(0)));
        assertEquals(chunk(key(1)), engine.read(key(1)));
        assertThrows(IllegalArgumentException.class, () -> new WriterPolicy(null, 0.6));
    }

    @Test
    void aBatchOfSegmentsIsDoomedAtOnceSoThatOneCheckpointReleasesThemAllAndEachIsReclaimedWhenNeeded()
            throws Exception {
        // Oldest first: the batch doomed when a segment is needed and none is (the engine's order
        // would doom segments one by one as they are written).
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST,
                new WriterPolicy(null, 0, 3), device("a", 6));
        int i = 0;
        while (engine.table.waitingForCheckpoint() == 0) {
            engine.segmentWriter.append(key(i), chunk(key(i)));
            assertTrue(++i < 20 * PER_SEGMENT, "no segment was doomed");
        }
        assertEquals(3, engine.table.waitingForCheckpoint());
        assertEquals(3, engine.table.count(0, SegmentState.DOOMED));
        assertEquals(3, engine.checkpointer(java.util.UUID.randomUUID()).checkpoint(EngineFixture.NO_FILES)
                .freedSegments());
        assertEquals(3, engine.table.releasedSegments(0));
        assertEquals(0, engine.table.freeSegments(0), "released, not free: they serve until reused");
        for (int k = 0; k < 3 * PER_SEGMENT; k++) {
            assertEquals(chunk(key(k)), engine.read(key(k)), "chunk " + k + " of the doomed segments");
        }
        int next = i;
        for (int reclaimed = 1; reclaimed <= 3; reclaimed++) {
            // Each further segment reclaims one doomed segment: its chunks go then.
            for (int k = 0; k < PER_SEGMENT; k++, i++) {
                assertTrue(engine.segmentWriter.append(key(i), chunk(key(i))), "chunk " + i);
            }
            assertEquals(reclaimed, engine.segmentWriter.reclaimed());
            assertEquals(3 - reclaimed, engine.table.releasedSegments(0));
        }
        assertEquals(0, engine.table.waitingForCheckpoint(), "no checkpoint was needed for the three");
        for (int k = next; k < i; k++) {
            assertEquals(chunk(key(k)), engine.read(key(k)), "chunk " + k);
        }
    }

    /**
     * Appends compressible chunks stored compressed until the first segment is sealed, reads its first
     * {@code reads} chunks, then appends on until that segment is reclaimed; returns the chunks appended.
     */
    private static int fillCompressedReadAndReclaim(EngineFixture engine, int reads) throws Exception {
        int i = 0;
        while (engine.segmentWriter.sealed() == 0) {
            assertTrue(engine.writer.append(key(i), ChunkCompression.compress(compressible(key(i))), ChunkForm.LZ4));
            i++;
        }
        for (int k = 0; k < reads; k++) {
            assertEquals(compressible(key(k)), engine.read(key(k)), "chunk " + k + " of the first segment");
        }
        while (engine.segmentWriter.reclaimed() == 0) {
            assertTrue(engine.writer.append(key(i), ChunkCompression.compress(compressible(key(i))), ChunkForm.LZ4));
            i++;
        }
        engine.segmentWriter.flush();
        return i;
    }

    @Test
    void aChunkStoredCompressedIsWrittenAgainCompressedAsItWasRead() throws Exception {
        EngineFixture engine = engine(new WriterPolicy(null, 0.5), device("a", 4));
        int i = fillCompressedReadAndReclaim(engine, 5);
        assertEquals(5, engine.segmentWriter.reinserted());
        for (int k = 0; k < 5; k++) {
            assertEquals(compressible(key(k)), engine.read(key(k)), "read chunk " + k + " kept");
        }
        for (int k = 0; k < i; k++) {
            SegmentReader.Hit hit = engine.reader.read(key(k), EngineFixture.CHUNK, SegmentReader.NO_NEXT);
            if (hit != null) {
                try {
                    assertEquals(compressible(key(k)), hit.chunk(), "chunk " + k);
                    assertEquals(ChunkForm.LZ4, hit.form(), "chunk " + k + " stored as it was, compressed");
                    assertTrue(hit.recordBytes() < EngineFixture.CHUNK / 2, "chunk " + k + ": " + hit.recordBytes());
                } finally {
                    hit.release();
                }
            }
        }
        assertEquals(0, engine.mismatches);
    }

    /**
     * After its file's chunks are set to be stored as they are, a chunk kept compressed is written
     * again uncompressed (a roll back to a release that cannot read compressed records then finds none
     * once the reclaim order has gone round); the chunks of other files stay as they were.
     */
    @Test
    void aChunkKeptCompressedIsWrittenAgainUncompressedOnceItsFileIsStoredAsItIs() throws Exception {
        java.util.function.LongPredicate evenUncompressed = key -> ChunkKeys.position(key) / EngineFixture.CHUNK % 2 == 0;
        EngineFixture engine = engine(new WriterPolicy(null, 0.5, 1, null, null, null, evenUncompressed), device("a", 4));
        fillCompressedReadAndReclaim(engine, 6);
        assertEquals(6, engine.segmentWriter.reinserted());
        int raw = 0;
        for (int k = 0; k < 6; k++) {
            SegmentReader.Hit hit = engine.reader.read(key(k), EngineFixture.CHUNK, SegmentReader.NO_NEXT);
            assertTrue(hit != null, "read chunk " + k + " kept");
            try {
                assertEquals(compressible(key(k)), hit.chunk(), "chunk " + k);
                boolean uncompressed = evenUncompressed.test(key(k));
                assertEquals(uncompressed ? ChunkForm.RAW : ChunkForm.LZ4, hit.form(), "chunk " + k);
                raw += uncompressed ? 1 : 0;
            } finally {
                hit.release();
            }
        }
        assertEquals(0, engine.mismatches);
    }

    /**
     * A chunk kept compressed whose file is now stored as it is, but which uncompressed would not fit in
     * what is left of the share, is kept as it was: what was read is written again, not thrown away.
     */
    @Test
    void aChunkKeptCompressedThatWouldNotFitUncompressedIsKeptAsItWas() throws Exception {
        // a share of half a chunk: room for compressed records (a quarter of a chunk each, a block at least), not a whole one
        double share = (double) (EngineFixture.CHUNK / 2) / SEGMENT_BYTES;
        EngineFixture engine = engine(new WriterPolicy(null, share, 1, null, null, null, key -> true), device("a", 4));
        fillCompressedReadAndReclaim(engine, 6);
        long kept = engine.segmentWriter.reinserted();
        assertTrue(kept >= 1 && kept < 6, "as many as the share holds compressed: " + kept);
        for (int k = 0; k < 6; k++) {
            SegmentReader.Hit hit = engine.reader.read(key(k), EngineFixture.CHUNK, SegmentReader.NO_NEXT);
            if (hit != null) {
                try {
                    assertEquals(compressible(key(k)), hit.chunk(), "chunk " + k);
                    assertEquals(ChunkForm.LZ4, hit.form(), "chunk " + k + " kept as it was");
                } finally {
                    hit.release();
                }
            }
        }
        assertEquals(0, engine.mismatches);
    }
}

package io.flashchunk.cache.reclaim;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.admission.VictimAdmission;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.ChunkCompression;
import io.flashchunk.cache.format.ChunkForm;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.format.SegmentSummary;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.space.AddressSpaces;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * Reinsertion: the chunks of a segment being reclaimed that were read since they were written, the
 * most read first, up to a share of a segment, are read back and kept until the next segment opens,
 * where the appender writes them again. The share bounds the flash bytes written per admitted byte
 * at {@code 1 / (1 - share)}. A kept chunk whose file changed meanwhile is forgotten, never written
 * back. Writer thread only; the count is read from any thread.
 */
public final class Reinsertion {
    /**
     * A chunk read back from a reclaimed segment, to be appended again in the form its record held it,
     * or uncompressed when its file's chunks are now stored as they are.
     */
    public static final class Kept {
        private final long key;
        private final ByteBuffer chunk;
        private final ChunkForm form;

        public Kept(long key, ByteBuffer chunk, ChunkForm form) {
            this.key = key;
            this.chunk = chunk;
            this.form = form;
        }

        /** The form {@link #chunk} is in: the record's payload as it was, or the chunk decompressed. */
        public ChunkForm form() {
            return form;
        }

        public long key() {
            return key;
        }

        public ByteBuffer chunk() {
            return chunk;
        }

        @Override
        public String toString() {
            return "Kept[key=" + key + ", chunk=" + chunk + ", form=" + form + "]";
        }
    }

    private final SegmentTable table;
    private final AddressSpaces spaces;
    private final ChunkIndex index;
    private final VictimAdmission admission;
    private final LongPredicate liveKey;
    private final long shareBytes;
    private final LongPredicate storeUncompressed;
    /** Where a chunk kept compressed is decompressed, once one is: the writer's alone. */
    private ByteBuffer scratch;
    private final ArrayDeque<Kept> kept = new ArrayDeque<>();
    private volatile long reinserted;

    /**
     * @param admission whose frequencies order the read chunks (null: in the segment's order)
     * @param liveKey   keys whose chunks may still be served: the others are never written again
     * @param shareBytes how much of a segment reinsertion may fill (0: none)
     */
    public Reinsertion(SegmentTable table, AddressSpaces spaces, ChunkIndex index,
                       VictimAdmission admission, LongPredicate liveKey, long shareBytes) {
        this(table, spaces, index, admission, liveKey, shareBytes, null);
    }

    /**
     * @param storeUncompressed keys whose chunks, kept compressed, are kept uncompressed (their file's
     *                          chunks are now stored as they are), or null: every chunk kept as it was
     */
    public Reinsertion(SegmentTable table, AddressSpaces spaces, ChunkIndex index, VictimAdmission admission,
                       LongPredicate liveKey, long shareBytes, LongPredicate storeUncompressed) {
        this.table = table;
        this.spaces = spaces;
        this.index = index;
        this.admission = admission;
        this.liveKey = liveKey;
        this.shareBytes = shareBytes;
        this.storeUncompressed = storeUncompressed;
    }

    /**
     * Keeps the chunks of {@code segment}, being reclaimed, that were read since written, the most read
     * lately first (by admission's sketch, when there is one), up to the share, read back and checked;
     * one that cannot be read or checked is left out. Before the segment's entries leave the index:
     * their read bits say what was read.
     */
    void keepReadChunks(int segment, SegmentSummary summary) {
        if (shareBytes == 0) {
            return;
        }
        int space = table.space(segment);
        int at = table.index(segment);
        SegmentLayout layout = spaces.layout(space);
        List<Integer> read = new ArrayList<>();
        for (int i = 0; i < summary.count(); i++) {
            if (index.wasRead(summary.keys()[i], layout.address(space, at, summary.sectors()[i]))
                    && liveKey.test(summary.keys()[i])) {
                read.add(i);
            }
        }
        if (admission != null) {
            // Frequencies change under readers: sort by a snapshot, or the sort may see an inconsistent order.
            int[] frequency = new int[summary.count()];
            for (int i : read) {
                frequency[i] = admission.frequency(summary.keys()[i]);
            }
            read.sort(Comparator.comparingInt((Integer i) -> frequency[i]).reversed());
        }
        long budget = shareBytes;
        for (int i : read) {
            int bytes = RecordFormat.recordBytes(summary.lengths()[i], layout.sectorBytes());
            if (bytes > budget) {
                continue;
            }
            long start = layout.startByte(at) + (long) summary.sectors()[i] * layout.sectorBytes();
            long firstBlock = start / BlockDevice.BLOCK_SIZE;
            long endBlock = (start + bytes + BlockDevice.BLOCK_SIZE - 1) / BlockDevice.BLOCK_SIZE;
            ByteBuffer blocks = AlignedBuffers.allocate((int) (endBlock - firstBlock) * BlockDevice.BLOCK_SIZE);
            try {
                spaces.driver(space).await(spaces.driver(space).read(firstBlock, blocks), "reinsertion read of segment " + segment);
                int recordAt = (int) (start - firstBlock * BlockDevice.BLOCK_SIZE);
                long key = summary.keys()[i];
                ByteBuffer chunk = RecordFormat.check(blocks, recordAt, key, table.sequence(segment));
                ChunkForm form = RecordFormat.form(blocks, recordAt);
                ByteBuffer raw = form == ChunkForm.LZ4 && storeUncompressed != null && storeUncompressed.test(key)
                        ? decompressed(chunk) : null;
                int rawBytes = raw == null ? 0 : RecordFormat.recordBytes(raw.remaining(), layout.sectorBytes());
                if (raw != null && rawBytes <= budget) {
                    // its file's chunks are stored as they are now: so is this one from here on
                    kept.add(new Kept(key, ByteBuffer.allocate(raw.remaining()).put(raw).flip(), ChunkForm.RAW));
                    bytes = rawBytes;
                } else {
                    // as it was (also when its chunk, uncompressed, would not fit in what is left of the share)
                    kept.add(new Kept(key, ByteBuffer.allocate(chunk.remaining()).put(chunk).flip(), form));
                }
                budget -= bytes;
            } catch (IOException | RecordMismatchException e) {
                // Not kept: a chunk the device cannot give back is a miss, never a wrong byte.
            }
        }
    }

    /** {@code payload} (LZ4) decompressed into the scratch buffer, as a view of it; valid until the next call. */
    private ByteBuffer decompressed(ByteBuffer payload) throws RecordMismatchException {
        if (scratch == null) {
            scratch = ByteBuffer.allocate(RecordFormat.MAX_CHUNK_BYTES);
        }
        scratch.clear();
        ChunkCompression.decompress(payload, scratch, RecordFormat.MAX_CHUNK_BYTES);
        return scratch.flip();
    }

    /** The next kept chunk to append, or null when none is kept. */
    public Kept next() {
        while (!kept.isEmpty() && !liveKey.test(kept.peek().key())) {
            kept.poll(); // kept before its file died: never written again
        }
        return kept.peek();
    }

    /** The chunk {@link #next} gave was appended again. */
    public void appended() {
        kept.poll();
        reinserted++;
    }

    /**
     * The chunk of {@code key} changed in its file (it was invalidated): a copy of it read back and
     * still waiting for a segment is dropped, or it would put the old bytes back. Its entry left the
     * index when its segment was reclaimed, so the index holds nothing for the invalidation to remove;
     * without this the copy outlives it whenever no segment could be opened right after the reclaim
     * (one waits for a checkpoint, or a read still holds the reclaimed segment).
     */
    public void forget(long key) {
        kept.removeIf(chunk -> chunk.key() == key);
    }

    /** Chunks written again from reclaimed segments. */
    public long reinserted() {
        return reinserted;
    }
}

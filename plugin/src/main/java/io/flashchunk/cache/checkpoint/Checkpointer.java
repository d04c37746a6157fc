package io.flashchunk.cache.checkpoint;

import io.flashchunk.cache.index.ChunkEntry;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.cache.index.ChunkKeys;
import io.flashchunk.cache.index.FileRegistry;
import io.flashchunk.cache.index.RecoveredEntries;
import io.flashchunk.cache.space.AddressSpace;
import io.flashchunk.cache.space.SpaceManager;
import java.io.IOException;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Writes checkpoints (the paper's section III-D). Each address space keeps, in the older of its two
 * areas, the entries that live on it plus the file table. The order is what makes a crash at any
 * moment safe:
 * <ol>
 *   <li>retire every space's temporary free list (blocks evicted since the last checkpoint);</li>
 *   <li>write the file table and the entries, flush, write the header, flush, on every space;</li>
 *   <li>only then release the retired blocks to the main free lists.</li>
 * </ol>
 * Blocks named by the newest durable checkpoint are thus never reused before a newer one is
 * durable. Reads and puts go on meanwhile; the index is iterated, not locked.
 *
 * <p>Recovered entries not yet moved into the index are written too, from their table. Entries only
 * move from the table to the index, so iterating the index first and the table second sees each at
 * most once; the background mover holds off while a checkpoint runs, so none is missed either.
 */
public final class Checkpointer {
    private final ChunkIndex index;
    private final Supplier<RecoveredEntries> recovered;
    private final FileRegistry files;
    private final SpaceManager spaces;
    private final List<SpaceLayout> layouts;
    private final UUID instance;
    // Sequence of the checkpoint in each space's two areas (0 when none is valid).
    private final long[][] areaSequences;
    // The newest durable checkpoint's sequence, and the highest ever used: a failed checkpoint may
    // have left a durable header on some space, so its sequence is spent and never written again.
    private long lastSequence;
    private long spentSequence;

    /** What one checkpoint did. */
    public record Result(long sequence, long entries, long bytes, long refused, long millis) {
    }

    /** @param recovered recovered entries not yet in the index, or null when there are none */
    public Checkpointer(ChunkIndex index, Supplier<RecoveredEntries> recovered, FileRegistry files, SpaceManager spaces, List<SpaceLayout> layouts,
                        UUID instance, long[][] areaSequences) {
        this.index = index;
        this.recovered = recovered;
        this.files = files;
        this.spaces = spaces;
        this.layouts = List.copyOf(layouts);
        this.instance = instance;
        this.areaSequences = new long[layouts.size()][];
        for (int i = 0; i < layouts.size(); i++) {
            this.areaSequences[i] = areaSequences[i].clone();
            lastSequence = Math.max(lastSequence, Math.max(areaSequences[i][0], areaSequences[i][1]));
        }
        spentSequence = lastSequence;
    }

    /** The sequence of the newest durable checkpoint. */
    public synchronized long lastSequence() {
        return lastSequence;
    }

    /** Runs {@code task} while no checkpoint runs. */
    public synchronized void excludingCheckpoints(Runnable task) {
        task.run();
    }

    public synchronized Result checkpoint() throws IOException {
        long start = System.nanoTime();
        List<AddressSpace> all = spaces.spaces();
        for (AddressSpace space : all) {
            space.retireTemporary();
        }
        long sequence = ++spentSequence;
        FileTableCodec.Encoded table = FileTableCodec.encode(files.liveFilesWithEntries());
        int nextFileId = files.nextId();
        long entries = 0;
        long bytes = 0;
        long refused = 0;
        boolean durable = false;
        try {
            AreaWriter[] writers = new AreaWriter[all.size()];
            int[] areas = new int[all.size()];
            for (int s = 0; s < all.size(); s++) {
                // The older area; the newest durable checkpoint of this space is never overwritten.
                areas[s] = areaSequences[s][0] <= areaSequences[s][1] ? 0 : 1;
                writers[s] = new AreaWriter(all.get(s).driver(), layouts.get(s), areas[s], table.bytes());
                // The area is being overwritten: until its header is written, it holds no checkpoint.
                areaSequences[s][areas[s]] = 0;
            }
            for (ChunkEntry entry : index.entries()) {
                long location = entry.location();
                if (ChunkLocation.isOnFlash(location) && table.ids().get(entry.fileId())) {
                    int s = ChunkLocation.space(location);
                    // Named under the space's lock: if the entry dies now, its run waits for a checkpoint.
                    if (all.get(s).name(ChunkLocation.lba(location), () -> entry.location() == location)) {
                        writers[s].add(entry.fileId(), (int) (entry.key() & 0xFFFF_FFFFL), location, entry.crc());
                    }
                }
            }
            RecoveredEntries moving = recovered.get();
            if (moving != null) {
                addRecovered(moving, table.ids(), all, writers);
            }
            for (int s = 0; s < all.size(); s++) {
                writers[s].finish(instance, s, sequence, nextFileId, table.count());
                areaSequences[s][areas[s]] = sequence;
                entries += writers[s].entries();
                bytes += writers[s].bodyBytes() + SpaceLayout.BLOCK_SIZE;
                refused += writers[s].refused();
            }
            durable = true;
        } finally {
            // Failed, some spaces may hold this checkpoint durably: its runs stay held with the last one's.
            for (AddressSpace space : all) {
                space.finishNaming(durable);
            }
        }
        lastSequence = sequence;
        spaces.releaseRetired();
        return new Result(sequence, entries, bytes, refused, (System.nanoTime() - start) / 1_000_000);
    }

    /** Writes the recovered entries still in their table, named like the index's. */
    private static void addRecovered(RecoveredEntries moving, java.util.BitSet fileIds, List<AddressSpace> all,
                                     AreaWriter[] writers) throws IOException {
        for (int e = 0; e < moving.slots(); e++) {
            long location = moving.location(e);
            long key = moving.key(e);
            int fileId = ChunkKeys.fileId(key);
            if (ChunkLocation.isOnFlash(location) && fileIds.get(fileId)) {
                int s = ChunkLocation.space(location);
                int entry = e;
                if (all.get(s).name(ChunkLocation.lba(location), () -> moving.location(entry) == location)) {
                    writers[s].add(fileId, (int) (key & 0xFFFF_FFFFL), location, moving.crc(e));
                }
            }
        }
    }
}

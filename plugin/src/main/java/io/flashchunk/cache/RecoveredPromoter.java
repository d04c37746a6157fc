package io.flashchunk.cache;

import io.flashchunk.cache.index.ChunkEntry;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.index.ChunkKeys;
import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.cache.index.FileRegistry;
import io.flashchunk.cache.index.RecoveredEntries;
import io.flashchunk.cache.space.SpaceManager;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves recovered entries from the {@link RecoveredEntries} table into the index: one on its first
 * read ({@link #promote}), all of them on a background thread ({@link #start}). Until an entry has
 * moved, the table holds its run and the index's maximum weight is lowered by its blocks, so the
 * two together never promise more flash than the index's capacity.
 *
 * <p>A move must never let an invalidation be lost. The entry goes into the index first as
 * pending (never served: it is in no write queue), then is taken from the table, then gets its
 * location. An invalidation takes the table entry first and removes the index's entry second, so
 * whichever way the two interleave, either the move fails before the entry can be served, or the
 * invalidation removes the moved entry.
 */
final class RecoveredPromoter {
    private static final Logger LOG = LoggerFactory.getLogger(RecoveredPromoter.class);
    private static final int BATCH = 4096;
    /** Longest wait for a move another thread has under way (it was descheduled). */
    private static final long SETTLE_NANOS = 200_000_000L;

    private final RecoveredEntries table;
    private final ChunkIndex index;
    private final FileRegistry files;
    private final SpaceManager spaces;
    private final long indexBlocks;
    private final Consumer<Runnable> excludingCheckpoints;
    private final Runnable onDone;
    private final Thread thread;
    private volatile boolean stopped;
    // Blocks of moves under way, already added to the index's bound (guarded by this).
    private long movingBlocks;
    private long bound = -1;

    /**
     * @param indexBlocks          the index's capacity once every entry has moved
     * @param excludingCheckpoints runs a batch of moves while no checkpoint iterates the index, so that
     *                             a checkpoint sees each entry either in the table or in the index
     * @param onDone               called when the table is empty
     */
    RecoveredPromoter(RecoveredEntries table, ChunkIndex index, FileRegistry files, SpaceManager spaces,
                      long indexBlocks, Consumer<Runnable> excludingCheckpoints, Runnable onDone) {
        this.table = table;
        this.index = index;
        this.files = files;
        this.spaces = spaces;
        this.indexBlocks = indexBlocks;
        this.excludingCheckpoints = excludingCheckpoints;
        this.onDone = onDone;
        this.thread = new Thread(this::run, "flashchunk-promoter");
        thread.setDaemon(true);
        updateBound();
    }

    void start() {
        thread.start();
    }

    /** Stops the background moves and waits for the batch in progress; entries left stay in the table. */
    void stop() {
        stopped = true;
        try {
            thread.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Moves the entry of {@code key} into the index if the table holds it; returns the index's entry for it, or null. */
    ChunkEntry promoteKey(long key) {
        int entry = table.find(key);
        return entry < 0 ? null : promote(entry);
    }

    /**
     * Moves table entry {@code entry} into the index. Returns the index's entry for its key (pending,
     * so a miss, while another thread is moving it), or null when it is gone.
     */
    ChunkEntry promote(int entry) {
        long location = table.location(entry);
        if (ChunkLocation.isDead(location)) {
            return null;
        }
        // Room in the index's bound before the insert: Caffeine evicts whenever the weight passes the
        // bound, so a move that raised the weight first could evict a recovered chunk for nothing.
        long blocks = 1L << ChunkLocation.order(ChunkLocation.length(location));
        reserve(blocks);
        try {
            return move(entry, location);
        } finally {
            reserve(-blocks);
        }
    }

    /**
     * Adds {@code blocks} to the moves under way and sets the index's bound: its capacity less the
     * blocks still in the table, plus the moves under way (for the moment of a move, the index and the
     * table may both count its blocks; the space reserve covers that).
     */
    private synchronized void reserve(long blocks) {
        movingBlocks += blocks;
        updateBound();
    }

    private synchronized void updateBound() {
        long next = indexBlocks - table.blocks() + movingBlocks;
        if (next != bound) {
            bound = next;
            index.setMaximumBlocks(next);
        }
    }

    /**
     * Waits until {@code entry} is no longer pending, for at most {@link #SETTLE_NANOS}; returns
     * whether it is not. A move is pending for a few instructions, unless its thread is descheduled
     * in between (two cores, a garbage collection): so spin, then yield, then sleep.
     */
    static boolean awaitSettled(ChunkEntry entry) {
        long deadline = 0;
        for (int round = 0; ChunkLocation.isPending(entry.location()); round++) {
            if (round < 1_000) {
                Thread.onSpinWait();
            } else if (round < 1_100) {
                Thread.yield();
            } else if (deadline == 0) {
                deadline = System.nanoTime() + SETTLE_NANOS;
            } else if (System.nanoTime() - deadline > 0) {
                return false;
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
        return true;
    }

    /** The move itself; the caller has made room for it in the index's bound. */
    private ChunkEntry move(int entry, long location) {
        long pending = ChunkLocation.pending(ChunkLocation.length(location));
        ChunkEntry moving = new ChunkEntry(table.key(entry), pending, table.crc(entry));
        if (!index.insert(moving)) {
            return index.peek(moving.key());
        }
        if (!table.take(entry, location)) {
            // Invalidated meanwhile: the invalidation owns the run; the pending entry was never served.
            index.remove(moving);
            moving.markDead();
            return null;
        }
        // The file's entry count, raised by insert, already counted this entry in the table.
        files.entryRemoved(moving.fileId());
        if (!moving.compareAndSetLocation(pending, location)) {
            // Evicted or invalidated while pending: that found no run to free, so it is ours to free.
            spaces.releaseAfterCheckpoint(spaces.space(ChunkLocation.space(location)), ChunkLocation.lba(location),
                    ChunkLocation.order(ChunkLocation.length(location)));
            return null;
        }
        return moving;
    }

    private void run() {
        long start = System.nanoTime();
        int size = table.slots();
        try {
            // A second pass only finds entries whose key another thread was moving during the first.
            for (int pass = 0; pass < 2 && !stopped && table.entries() > 0; pass++) {
                boolean last = pass == 1;
                for (int from = 0; from < size && !stopped; from += BATCH) {
                    int batchStart = from;
                    excludingCheckpoints.accept(() -> moveBatch(batchStart, Math.min(size, batchStart + BATCH), last));
                }
            }
            if (!stopped && table.entries() == 0) {
                updateBound();
                LOG.info("flash cache: {} recovered entries moved into the index in {} ms", size,
                        (System.nanoTime() - start) / 1_000_000);
                onDone.run();
            }
        } catch (RuntimeException e) {
            LOG.warn("flash cache: moving recovered entries into the index stopped; the rest stay served from the table",
                    e);
        }
    }

    private void moveBatch(int from, int to, boolean last) {
        long batchBlocks = 0;
        for (int entry = from; entry < to; entry++) {
            long location = table.location(entry);
            if (!ChunkLocation.isDead(location)) {
                batchBlocks += 1L << ChunkLocation.order(ChunkLocation.length(location));
            }
        }
        // Room for the whole batch first, so that moving it evicts nothing (see reserve).
        reserve(batchBlocks);
        try {
            moveEntries(from, to, last);
        } finally {
            reserve(-batchBlocks);
        }
    }

    private void moveEntries(int from, int to, boolean last) {
        for (int entry = from; entry < to; entry++) {
            long location = table.location(entry);
            if (ChunkLocation.isDead(location)) {
                continue;
            }
            int fileId = ChunkKeys.fileId(table.key(entry));
            if (!files.isLive(fileId)) {
                // Its file is gone or changed (a sweep would do the same): free at once.
                if (table.take(entry, location)) {
                    files.entryRemoved(fileId);
                    spaces.release(spaces.space(ChunkLocation.space(location)), ChunkLocation.lba(location),
                            ChunkLocation.order(ChunkLocation.length(location)));
                }
                continue;
            }
            ChunkEntry present = move(entry, location);
            // Not moved, and the index holds another entry for the key (on the last pass). That may be
            // a reader's move of this very slot, pending until it takes the slot: let it finish first.
            if (last && present != null && awaitSettled(present) && table.take(entry, location)) {
                // Another entry for the key, from a put: it wins, as at loading.
                files.entryRemoved(fileId);
                spaces.releaseAfterCheckpoint(spaces.space(ChunkLocation.space(location)), ChunkLocation.lba(location),
                        ChunkLocation.order(ChunkLocation.length(location)));
            }
        }
    }
}

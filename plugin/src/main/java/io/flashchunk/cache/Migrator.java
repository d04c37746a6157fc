package io.flashchunk.cache;

import io.flashchunk.buffer.AlignedBufferPool;
import io.flashchunk.cache.index.ChunkEntry;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.cache.space.AddressSpace;
import io.flashchunk.cache.space.SpaceManager;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * Moves the hottest chunks off an overloaded address space (the paper's maintenance task). A move
 * reads and verifies the chunk, writes it to the other space, and then switches the entry's
 * location with one compare-and-set, bumping its version stamp: a read in flight at the old place
 * sees the change and falls back. The old run may still be named by the last checkpoint, so it is
 * freed like an eviction's.
 */
final class Migrator {
    private final ChunkIndex index;
    private final SpaceManager spaces;
    private final AlignedBufferPool pool;
    private final CacheMetrics metrics;

    Migrator(ChunkIndex index, SpaceManager spaces, AlignedBufferPool pool, CacheMetrics metrics) {
        this.index = index;
        this.spaces = spaces;
        this.pool = pool;
        this.metrics = metrics;
    }

    /** Moves up to {@code limit} of the hottest chunks on {@code from} to {@code to}; returns how many moved. */
    int moveHottest(AddressSpace from, AddressSpace to, int limit) {
        int moved = 0;
        int scanLimit = limit * spaces.spaces().size() * 4;
        for (ChunkEntry entry : index.hottest(scanLimit)) {
            if (moved >= limit) {
                break;
            }
            long location = entry.location();
            if (ChunkLocation.isOnFlash(location) && ChunkLocation.space(location) == from.index()
                    && move(entry, location, to)) {
                moved++;
            }
        }
        return moved;
    }

    /** Moves one chunk; false when it could not (no room, I/O error, or the entry changed meanwhile). */
    boolean move(ChunkEntry entry, long location, AddressSpace to) {
        int length = ChunkLocation.length(location);
        int order = ChunkLocation.order(length);
        long lba = to.allocate(order);
        if (lba < 0) {
            return false;
        }
        AddressSpace from = spaces.space(ChunkLocation.space(location));
        ByteBuffer buffer = pool.acquire(length);
        boolean switched = false;
        // The operation in flight: the buffer and the new run are given back only once it has ended.
        CompletableFuture<Void> io = CompletableFuture.completedFuture(null);
        try {
            io = from.driver().read(ChunkLocation.lba(location), buffer);
            from.driver().await(io, "migration read");
            ByteBuffer bytes = buffer.duplicate().limit(length);
            if (entry.location() == location && FlashChunkCache.crc32c(bytes) == entry.crc()) {
                io = to.driver().write(lba, buffer);
                to.driver().await(io, "migration write");
                switched = entry.compareAndSetLocation(location, ChunkLocation.moved(location, to.index(), lba));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            metrics.readErrors.increment();
        } finally {
            if (switched) {
                metrics.migrations.increment();
                to.writes().mark(1);
                spaces.releaseAfterCheckpoint(from, ChunkLocation.lba(location), order);
                pool.release(buffer);
            } else {
                // A device that did not answer in time may still read into the buffer or write the run.
                io.whenComplete((ignored, failure) -> {
                    spaces.release(to, lba, order);
                    pool.release(buffer);
                });
            }
        }
        return switched;
    }
}

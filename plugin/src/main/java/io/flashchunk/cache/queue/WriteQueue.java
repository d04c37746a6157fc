package io.flashchunk.cache.queue;

import io.flashchunk.buffer.AlignedBufferPool;
import io.flashchunk.cache.CacheMetrics;
import io.flashchunk.cache.WarningThrottle;
import io.flashchunk.cache.index.ChunkEntry;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.index.ChunkKeys;
import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.cache.index.FileRegistry;
import io.flashchunk.cache.space.SpaceManager;
import io.flashchunk.cache.space.SpaceManager.Allocation;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The paper's two-stage write queue, bounded in bytes.
 *
 * <p>Stage 1 takes chunks read on misses: the caller only copies the bytes into a pooled buffer and
 * returns (or the chunk is dropped when the queue is full). A stage-1 thread computes the checksum,
 * makes the entry (pending, its buffer kept here so hits are served from memory) and puts it in the
 * index, where the eviction policy starts to judge it. Stage 2 allocates flash, writes, and then
 * publishes the location with one compare-and-set. An entry evicted before it reaches flash is
 * dropped unwritten: one-hit chunks never cost a flash write.
 */
public final class WriteQueue implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WriteQueue.class);
    private final WarningThrottle writeFailures = new WarningThrottle(10, TimeUnit.SECONDS);

    private final ChunkIndex index;
    private final FileRegistry files;
    private final SpaceManager spaces;
    private final AlignedBufferPool pool;
    private final CacheMetrics metrics;
    private final long byteLimit;
    private final long allocationWaitNanos;
    private final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicInteger queuedChunks = new AtomicInteger();
    private final BlockingQueue<StagedChunk> stage1 = new LinkedBlockingQueue<>();
    private final BlockingQueue<ChunkEntry> stage2 = new LinkedBlockingQueue<>();
    // By entry identity: an entry evicted while queued and a newer one for the same key may both be here.
    private final Map<Identity, StagedChunk> pending = new ConcurrentHashMap<>();
    private final NeighbourPlacement placement;
    private final Thread stage1Worker;
    private final Thread stage2Worker;
    private volatile boolean running = true;

    private record StagedChunk(long key, ByteBuffer buffer, int length, long offeredNanos) {
    }

    // When each chunk position was last invalidated: a put offered before that holds old bytes.
    private final Map<Long, Long> invalidatedAt = new ConcurrentHashMap<>();
    private static final long INVALIDATION_MEMORY_NANOS = TimeUnit.MINUTES.toNanos(10);
    private static final long MAX_STAGE1_AGE_NANOS = TimeUnit.MINUTES.toNanos(5);
    private long lastPruneNanos = System.nanoTime();

    /** A map key that is equal only to itself's entry (entries are equal by chunk key). */
    private record Identity(ChunkEntry entry) {
        @Override
        public boolean equals(Object other) {
            return other instanceof Identity identity && identity.entry == entry;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(entry);
        }
    }

    public WriteQueue(ChunkIndex index, FileRegistry files, SpaceManager spaces, AlignedBufferPool pool,
                      CacheMetrics metrics, long byteLimit, long allocationWaitMillis) {
        this.index = index;
        this.files = files;
        this.spaces = spaces;
        this.pool = pool;
        this.metrics = metrics;
        this.byteLimit = byteLimit;
        this.allocationWaitNanos = TimeUnit.MILLISECONDS.toNanos(allocationWaitMillis);
        this.placement = new NeighbourPlacement(index, spaces);
        this.stage1Worker = new Thread(this::runStage1, "flashchunk-queue-stage1");
        this.stage2Worker = new Thread(this::runStage2, "flashchunk-queue-stage2");
        stage1Worker.setDaemon(true);
        stage2Worker.setDaemon(true);
        stage1Worker.start();
        stage2Worker.start();
    }

    /**
     * Queues a copy of {@code chunk} (position to limit) under {@code key}, read from its file from
     * {@code readStartedNanos} (System.nanoTime) on. Never blocks; returns false when the chunk was
     * dropped because the queue is full.
     */
    public boolean offer(long key, ByteBuffer chunk, long readStartedNanos) {
        int length = chunk.remaining();
        if (!reserve(length)) {
            metrics.droppedQueueFull.increment();
            return false;
        }
        ByteBuffer copy = pool.acquire(length);
        copy.put(0, chunk, chunk.position(), length);
        queuedChunks.incrementAndGet();
        stage1.add(new StagedChunk(key, copy, length, readStartedNanos));
        return true;
    }

    private boolean reserve(int length) {
        while (true) {
            long current = queuedBytes.get();
            if (current + length > byteLimit) {
                return false;
            }
            if (queuedBytes.compareAndSet(current, current + length)) {
                return true;
            }
        }
    }

    /**
     * The chunk at {@code key} changed in its file: puts of it offered until now hold old bytes and
     * must not be admitted (Cassandra's early open rewrites the last chunk of a growing file). Call
     * before removing the key from the index.
     */
    public void invalidate(long key) {
        invalidatedAt.put(key, System.nanoTime());
    }

    private boolean offeredBeforeInvalidation(StagedChunk staged) {
        Long at = invalidatedAt.get(staged.key());
        return at != null && at - staged.offeredNanos() >= 0;
    }

    /** Forgets invalidations older than any chunk stage 1 still admits. */
    private void pruneInvalidations() {
        long now = System.nanoTime();
        if (now - lastPruneNanos > TimeUnit.SECONDS.toNanos(10)) {
            lastPruneNanos = now;
            invalidatedAt.values().removeIf(at -> now - at > INVALIDATION_MEMORY_NANOS);
        }
    }

    /**
     * Copies a pending chunk into {@code target} (from position 0) and returns its length, or -1 when
     * the chunk is no longer in memory (written meanwhile, or dropped).
     */
    public int copyPending(ChunkEntry entry, ByteBuffer target) {
        StagedChunk staged = pending.get(new Identity(entry));
        if (staged == null || ChunkLocation.isDead(entry.location())) {
            return -1;
        }
        target.put(0, staged.buffer(), 0, staged.length());
        // The buffer goes back to the pool only after it leaves the map: still mapped means intact.
        return pending.get(new Identity(entry)) == staged ? staged.length() : -1;
    }

    public long queuedBytes() {
        return queuedBytes.get();
    }

    public int queuedChunks() {
        return queuedChunks.get();
    }

    private void runStage1() {
        CRC32C crc = new CRC32C();
        while (running) {
            StagedChunk staged;
            try {
                staged = stage1.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (staged != null) {
                try {
                    admit(staged, crc);
                } catch (RuntimeException e) {
                    LOG.error("flash cache: dropping a queued chunk after an unexpected error", e);
                    finish(staged.buffer(), staged.length(), null);
                }
            }
        }
    }

    private void admit(StagedChunk staged, CRC32C crc) {
        pruneInvalidations();
        int fileId = ChunkKeys.fileId(staged.key());
        if (!files.isLive(fileId) || offeredBeforeInvalidation(staged)
                || System.nanoTime() - staged.offeredNanos() > MAX_STAGE1_AGE_NANOS) {
            finish(staged.buffer(), staged.length(), null);
            return;
        }
        crc.reset();
        crc.update(staged.buffer().duplicate().position(0).limit(staged.length()));
        ChunkEntry entry = new ChunkEntry(staged.key(), ChunkLocation.pending(staged.length()), (int) crc.getValue());
        pending.put(new Identity(entry), staged);
        if (!index.insert(entry)) {
            metrics.putsAlreadyCached.increment();
            pending.remove(new Identity(entry));
            finish(staged.buffer(), staged.length(), null);
            return;
        }
        // The file or this position may have been invalidated while we inserted; the invalidation
        // may have looked before our entry was there.
        if ((!files.isLive(fileId) || offeredBeforeInvalidation(staged)) && index.remove(entry)) {
            entry.markDead();
        }
        stage2.add(entry);
    }

    private void runStage2() {
        while (running) {
            ChunkEntry entry;
            try {
                entry = stage2.poll(100, TimeUnit.MILLISECONDS);
                if (entry != null) {
                    write(entry);
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.error("flash cache: write stage failed unexpectedly", e);
            }
        }
    }

    private void write(ChunkEntry entry) throws InterruptedException {
        StagedChunk staged = pending.get(new Identity(entry));
        ByteBuffer buffer = staged.buffer();
        int length = staged.length();
        long pendingLocation = entry.location();
        if (!ChunkLocation.isPending(pendingLocation)) {
            metrics.droppedEvictedBeforeWrite.increment();
            finish(buffer, length, entry);
            return;
        }
        int order = ChunkLocation.order(length);
        Allocation beside = placement.beside(entry.key(), length, order);
        Allocation allocation = beside != null ? beside : spaces.allocate(order, allocationWaitNanos);
        if (allocation == null) {
            metrics.droppedNoSpace.increment();
            if (index.remove(entry)) {
                entry.markDead();
            }
            finish(buffer, length, entry);
            return;
        }
        if (!ChunkLocation.isPending(entry.location())) {
            spaces.release(allocation.space(), allocation.lba(), order);
            metrics.droppedEvictedBeforeWrite.increment();
            finish(buffer, length, entry);
            return;
        }
        placement.allocated(entry.key(), allocation);
        ByteBuffer blocks = buffer.duplicate().position(0).limit((length + 4095) & -4096);
        try {
            allocation.space().driver().write(allocation.lba(), blocks).whenComplete((ignored, failure) ->
                    written(entry, pendingLocation, allocation, length, blocks, failure));
        } catch (InterruptedException | RuntimeException e) {
            // Not started: give everything back, so neither the run nor the queue's bytes leak.
            spaces.release(allocation.space(), allocation.lba(), order);
            if (index.remove(entry)) {
                entry.markDead();
            }
            finish(buffer, length, entry);
            throw e;
        }
    }

    private void written(ChunkEntry entry, long pendingLocation, Allocation allocation, int length, ByteBuffer blocks,
                         Throwable failure) {
        ByteBuffer buffer = pending.get(new Identity(entry)).buffer();
        if (failure != null) {
            metrics.writeErrors.increment();
            writeFailures.warn(LOG, "flash cache: write failed, chunk dropped: {}", failure.getMessage());
            spaces.release(allocation.space(), allocation.lba(), allocation.order());
            if (index.remove(entry)) {
                entry.markDead();
            }
        } else {
            long onFlash = ChunkLocation.onFlash(allocation.space().index(), allocation.lba(), length, 0);
            if (entry.compareAndSetLocation(pendingLocation, onFlash)) {
                metrics.flashWrites.increment();
                metrics.flashBytesWritten.add(blocks.remaining());
                allocation.space().writes().mark(1);
            } else {
                // Evicted or invalidated while being written: no checkpoint ever named these blocks.
                spaces.release(allocation.space(), allocation.lba(), allocation.order());
                metrics.droppedEvictedBeforeWrite.increment();
            }
        }
        finish(buffer, length, entry);
    }

    private void finish(ByteBuffer buffer, int length, ChunkEntry entry) {
        if (entry != null) {
            pending.remove(new Identity(entry));
        }
        queuedBytes.addAndGet(-length);
        queuedChunks.decrementAndGet();
        pool.release(buffer);
    }

    @Override
    public void close() {
        running = false;
        for (Thread worker : new Thread[] {stage1Worker, stage2Worker}) {
            worker.interrupt();
            try {
                worker.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

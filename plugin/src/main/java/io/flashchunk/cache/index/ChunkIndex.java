package io.flashchunk.cache.index;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The in-heap index: a Caffeine (W-TinyLFU) map from chunk key to {@link ChunkEntry}, bounded by
 * flash blocks. An entry weighs the blocks of its run, from the moment it is queued, so the index
 * never promises more flash than there is. Entries evicted by weight are handed to
 * {@code onEvicted} synchronously, inside the eviction; explicit removals return the entry to the
 * caller, who frees its blocks. Each file's entry count in the {@link FileRegistry} follows.
 */
public final class ChunkIndex {
    private final Cache<ChunkEntry, ChunkEntry> cache;
    private final ConcurrentMap<ChunkEntry, ChunkEntry> map;
    private final FileRegistry files;

    public ChunkIndex(long maximumBlocks, Executor maintenance, FileRegistry files, Consumer<ChunkEntry> onEvicted) {
        this(maximumBlocks, 16, maintenance, files, onEvicted);
    }

    /** @param expectedEntries entries about to be inserted (recovery): the map is sized once, not grown */
    public ChunkIndex(long maximumBlocks, int expectedEntries, Executor maintenance, FileRegistry files,
                      Consumer<ChunkEntry> onEvicted) {
        if (maximumBlocks <= 0) {
            throw new IllegalArgumentException("index capacity must be positive, got " + maximumBlocks + " blocks");
        }
        this.files = files;
        this.cache = Caffeine.newBuilder()
                .initialCapacity(Math.max(16, expectedEntries))
                .maximumWeight(maximumBlocks)
                .weigher((ChunkEntry key, ChunkEntry entry) -> 1 << entry.order())
                .executor(maintenance)
                .evictionListener((ChunkEntry key, ChunkEntry entry, RemovalCause cause) -> {
                    if (entry != null && cause.wasEvicted()) {
                        files.entryRemoved(entry.fileId());
                        onEvicted.accept(entry);
                    }
                })
                .build();
        this.map = cache.asMap();
    }

    /** Looks up a chunk and counts the access for the eviction policy. */
    public ChunkEntry get(long key) {
        return cache.getIfPresent(ChunkEntry.probe(key));
    }

    /** Looks up a chunk without counting an access. */
    public ChunkEntry peek(long key) {
        return map.get(ChunkEntry.probe(key));
    }

    /** Adds the entry unless its key is present; returns whether it was added. */
    public boolean insert(ChunkEntry entry) {
        // Count first: an eviction racing with the insert must not take the count below zero.
        files.entryAdded(entry.fileId());
        if (map.putIfAbsent(entry, entry) == null) {
            return true;
        }
        files.entryRemoved(entry.fileId());
        return false;
    }

    /** Removes this very entry (not a newer one under the same key); returns whether it was there. */
    public boolean remove(ChunkEntry entry) {
        ChunkEntry[] removed = new ChunkEntry[1];
        map.computeIfPresent(entry, (key, current) -> {
            if (current == entry) {
                removed[0] = current;
                return null;
            }
            return current;
        });
        if (removed[0] == null) {
            return false;
        }
        files.entryRemoved(entry.fileId());
        return true;
    }

    /** Removes whatever entry is under the key; returns it, or null. */
    public ChunkEntry remove(long key) {
        ChunkEntry removed = map.remove(ChunkEntry.probe(key));
        if (removed != null) {
            files.entryRemoved(removed.fileId());
        }
        return removed;
    }

    /** Removes every entry matching {@code filter}, handing each removed one to {@code onRemoved}. */
    public int removeIf(Predicate<ChunkEntry> filter, Consumer<ChunkEntry> onRemoved) {
        int removed = 0;
        for (ChunkEntry entry : map.keySet()) {
            if (filter.test(entry) && remove(entry)) {
                onRemoved.accept(entry);
                removed++;
            }
        }
        return removed;
    }

    public long size() {
        return cache.estimatedSize();
    }

    /** Blocks the entries weigh, after pending maintenance. */
    public long weightedBlocks() {
        cache.cleanUp();
        return cache.policy().eviction().orElseThrow().weightedSize().orElse(0);
    }

    public long maximumBlocks() {
        return cache.policy().eviction().orElseThrow().getMaximum();
    }

    /** Changes the bound (recovered entries not yet moved in hold the rest of the flash); evicts down to it. */
    public void setMaximumBlocks(long blocks) {
        cache.policy().eviction().orElseThrow().setMaximum(Math.max(0, blocks));
    }

    /** Runs pending maintenance (evictions) now. */
    public void cleanUp() {
        cache.cleanUp();
    }

    /** Up to {@code limit} entries, most valuable to keep first (for migration). */
    public Iterable<ChunkEntry> hottest(int limit) {
        return cache.policy().eviction().orElseThrow().hottest(limit).keySet();
    }

    /** Every entry, in no particular order (for checkpoints and sweeps). */
    public Iterable<ChunkEntry> entries() {
        return map.keySet();
    }
}

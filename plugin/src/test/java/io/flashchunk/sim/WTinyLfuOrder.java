package io.flashchunk.sim;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.util.HashMap;
import java.util.Map;

/**
 * Caffeine's W-TinyLFU over whole segments: a read of any chunk counts for its segment, and when the
 * sealed segments outnumber the room, Caffeine picks the one to reclaim. Each sealing is a new
 * Caffeine key (a generation), so a rewritten segment does not inherit the count of the one it
 * replaced, and the reads a segment got while it was open are counted when it is sealed.
 */
final class WTinyLfuOrder implements EvictionOrder {
    /** Caffeine's frequency counters stop at 15: more reads of an open segment would not count. */
    private static final int MAX_COUNTED = 15;

    private final Cache<Long, Integer> generations;
    private final Map<Integer, Long> sealedAs = new HashMap<>();
    private final Map<Integer, Integer> openReads = new HashMap<>();
    private final int room;
    private long nextGeneration;
    private Integer evicted;
    /** Segments Caffeine evicted when asked for a batch ({@link #victims}), not yet taken. */
    private final java.util.ArrayDeque<Integer> batch = new java.util.ArrayDeque<>();
    private boolean batching;

    /** @param room sealed segments kept; the next one sealed makes Caffeine evict one */
    WTinyLfuOrder(int room) {
        this.room = room;
        generations = Caffeine.newBuilder()
                .maximumSize(room)
                .executor(Runnable::run)
                .evictionListener((Long generation, Integer segment, RemovalCause cause) -> {
                    sealedAs.remove(segment);
                    if (batching) {
                        batch.add(segment);
                        return;
                    }
                    if (evicted != null) {
                        throw new IllegalStateException("two segments evicted at once");
                    }
                    evicted = segment;
                })
                .build();
    }

    @Override
    public boolean hasEvicted() {
        generations.cleanUp();
        return evicted != null;
    }

    /**
     * Up to {@code count} segments to reclaim together, each chosen by Caffeine's own eviction: the
     * one it evicted already, then one more each time its bound is shrunk by one (then restored, so
     * the next sealings refill the room without evicting), as the engine's reclaim order does.
     */
    @Override
    public int[] victims(int count) {
        generations.cleanUp();
        int[] chosen = new int[count];
        int n = 0;
        if (evicted != null && count > 0) {
            chosen[n++] = evicted;
            evicted = null;
        }
        while (!batch.isEmpty() && n < count) {
            chosen[n++] = batch.poll();
        }
        var eviction = generations.policy().eviction().orElseThrow();
        while (n < count && generations.estimatedSize() > 0) {
            batching = true;
            try {
                eviction.setMaximum(generations.estimatedSize() - 1);
                generations.cleanUp();
            } finally {
                eviction.setMaximum(room);
                batching = false;
            }
            while (!batch.isEmpty() && n < count) {
                chosen[n++] = batch.poll();
            }
        }
        return java.util.Arrays.copyOf(chosen, n);
    }

    @Override
    public void sealed(int segment) {
        long generation = nextGeneration++;
        sealedAs.put(segment, generation);
        generations.put(generation, segment);
        int reads = Math.min(MAX_COUNTED, openReads.getOrDefault(segment, 0));
        openReads.remove(segment);
        for (int i = 0; i < reads && sealedAs.containsKey(segment); i++) {
            generations.getIfPresent(generation);
        }
    }

    @Override
    public void hit(int segment) {
        Long generation = sealedAs.get(segment);
        if (generation != null) {
            generations.getIfPresent(generation);
        } else {
            openReads.merge(segment, 1, Integer::sum);
        }
    }

    /** Caffeine's coldest sealed segment: what it would offer as the victim; its window may still choose otherwise. */
    @Override
    public int next() {
        if (evicted != null) {
            return evicted;
        }
        var coldest = generations.policy().eviction().orElseThrow().coldest(1).values();
        return coldest.isEmpty() ? -1 : coldest.iterator().next();
    }

    @Override
    public int victim() {
        if (evicted == null) {
            generations.cleanUp();
        }
        if (evicted == null) {
            throw new IllegalStateException("no segment was evicted");
        }
        int victim = evicted;
        evicted = null;
        return victim;
    }
}

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
    private long nextGeneration;
    private Integer evicted;

    /** @param room sealed segments kept; the next one sealed makes Caffeine evict one */
    WTinyLfuOrder(int room) {
        generations = Caffeine.newBuilder()
                .maximumSize(room)
                .executor(Runnable::run)
                .evictionListener((Long generation, Integer segment, RemovalCause cause) -> {
                    if (evicted != null) {
                        throw new IllegalStateException("two segments evicted at once");
                    }
                    sealedAs.remove(segment);
                    evicted = segment;
                })
                .build();
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

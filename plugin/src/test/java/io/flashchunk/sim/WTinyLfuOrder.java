package io.flashchunk.sim;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;

/**
 * Caffeine's W-TinyLFU over whole segments: a read of any chunk counts for its segment, and when the
 * sealed segments outnumber the room, Caffeine picks the one to reclaim.
 */
final class WTinyLfuOrder implements EvictionOrder {
    private final Cache<Integer, Boolean> segments;
    private Integer evicted;

    /** @param room sealed segments kept; the next one sealed makes Caffeine evict one */
    WTinyLfuOrder(int room) {
        segments = Caffeine.newBuilder()
                .maximumSize(room)
                .executor(Runnable::run)
                .evictionListener((Integer segment, Boolean value, RemovalCause cause) -> {
                    if (evicted != null) {
                        throw new IllegalStateException("two segments evicted at once");
                    }
                    evicted = segment;
                })
                .build();
    }

    @Override
    public void sealed(int segment) {
        segments.put(segment, Boolean.TRUE);
    }

    @Override
    public void hit(int segment) {
        segments.getIfPresent(segment);
    }

    @Override
    public int next() {
        if (evicted != null) {
            return evicted;
        }
        var coldest = segments.policy().eviction().orElseThrow().coldest(1).keySet();
        return coldest.isEmpty() ? -1 : coldest.iterator().next();
    }

    @Override
    public int victim() {
        if (evicted == null) {
            segments.cleanUp();
        }
        if (evicted == null) {
            throw new IllegalStateException("no segment was evicted");
        }
        int victim = evicted;
        evicted = null;
        return victim;
    }
}

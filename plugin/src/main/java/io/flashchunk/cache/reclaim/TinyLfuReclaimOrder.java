package io.flashchunk.cache.reclaim;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntPredicate;

/**
 * Caffeine's W-TinyLFU over whole segments: a read of any chunk counts for its segment, and once the
 * durable segments outnumber the room, Caffeine chooses which to give up. Each time a segment is
 * written it is a new Caffeine key (a generation), so a reused segment does not inherit the reads of
 * its previous use; reads while it was still in memory are counted when it is written (up to 15,
 * where Caffeine's counters stop).
 */
public final class TinyLfuReclaimOrder implements ReclaimOrder {
    private static final int MAX_COUNTED = 15;

    private final Cache<Long, Integer> generations;
    /** Each segment's current generation, or -1 while it is not durable. */
    private final AtomicLongArray generationOf;
    private final AtomicIntegerArray readsInMemory;
    private final ConcurrentLinkedQueue<Integer> evicted = new ConcurrentLinkedQueue<>();
    private final int room;
    private long nextGeneration;

    /**
     * @param segments segments in all spaces
     * @param room durable segments kept before Caffeine starts choosing victims (a few fewer than all,
     *        so that the open and written segments have somewhere to go)
     */
    public TinyLfuReclaimOrder(int segments, int room) {
        if (room < 1 || room > segments) {
            throw new IllegalArgumentException("room for " + room + " of " + segments + " segments");
        }
        this.room = room;
        generationOf = new AtomicLongArray(segments);
        readsInMemory = new AtomicIntegerArray(segments);
        for (int i = 0; i < segments; i++) {
            generationOf.set(i, -1);
        }
        generations = Caffeine.newBuilder()
                .maximumSize(room)
                .executor(Runnable::run)
                .evictionListener((Long generation, Integer segment, RemovalCause cause) -> {
                    if (segment != null && generationOf.compareAndSet(segment, generation, -1)) {
                        evicted.add(segment);
                    }
                })
                .build();
    }

    @Override
    public void written(int segment) {
        long generation = nextGeneration++;
        generationOf.set(segment, generation);
        generations.put(generation, segment);
        int reads = Math.min(MAX_COUNTED, readsInMemory.getAndSet(segment, 0));
        for (int i = 0; i < reads; i++) {
            generations.getIfPresent(generation);
        }
    }

    @Override
    public void opened(int segment) {
        readsInMemory.set(segment, 0); // a read of its previous use that ended late counted here
    }

    /** Reads counted for the segment's use not yet written (tests). */
    int readsBeforeWritten(int segment) {
        return readsInMemory.get(segment);
    }

    @Override
    public void read(int segment) {
        long generation = generationOf.get(segment);
        if (generation == -1) {
            readsInMemory.incrementAndGet(segment);
        } else {
            generations.getIfPresent(generation);
        }
    }

    @Override
    public boolean hasEvicted() {
        if (evicted.isEmpty()) {
            generations.cleanUp();
        }
        return !evicted.isEmpty();
    }

    @Override
    public int next() {
        Integer evictedAlready = evicted.peek();
        if (evictedAlready != null) {
            return evictedAlready;
        }
        var coldest = generations.policy().eviction().orElseThrow().coldest(1);
        return coldest.isEmpty() ? -1 : coldest.values().iterator().next();
    }

    /**
     * {@inheritDoc} In Caffeine's own order of eviction ({@code coldest}: the entries its policy
     * would give up first); those it gave up already, queued for {@link #victim}, are out of it.
     */
    @Override
    public int[] coldest(IntPredicate which, int max) {
        return generations.policy().eviction().orElseThrow().coldest(entries -> entries
                .mapToInt(entry -> entry.getValue())
                .filter(which)
                .limit(max)
                .toArray());
    }

    @Override
    public boolean take(int segment) {
        long generation = generationOf.get(segment);
        if (generation == -1 || !generationOf.compareAndSet(segment, generation, -1)) {
            return false; // not durable, or evicted by Caffeine already and queued
        }
        generations.invalidate(generation); // an explicit removal: the eviction listener does not queue it
        readsInMemory.set(segment, 0);
        return true;
    }

    /**
     * {@inheritDoc} Below the room (the writer reclaims ahead of it, a batch at a time), Caffeine
     * still chooses: its bound is shrunk by one so that its own eviction (window, probation and the
     * frequency duel) gives up a segment, then restored, rather than its coldest entry taken without
     * the duel. (Caffeine restarts its window's tuning at each new bound; the writer comes here only
     * when the order gave none up of its own accord, after a recovery or when dead files' segments
     * went first.)
     */
    @Override
    public int victim() {
        Integer segment = evicted.poll();
        if (segment == null) {
            generations.cleanUp();
            segment = evicted.poll();
        }
        var eviction = generations.policy().eviction().orElseThrow();
        while (segment == null) {
            long size = generations.estimatedSize();
            if (size == 0) {
                return -1;
            }
            eviction.setMaximum(size - 1);
            generations.cleanUp();
            eviction.setMaximum(room);
            segment = evicted.poll();
            if (segment == null && generations.estimatedSize() >= size) {
                return -1; // Caffeine gave none up: nothing left it may evict
            }
        }
        readsInMemory.set(segment, 0); // reads after it was chosen belong to no use
        return segment;
    }
}

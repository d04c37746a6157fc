package io.flashchunk.cache.reclaim;

import java.util.ArrayDeque;
import java.util.function.IntPredicate;

/** The oldest segment first (Navy's region FIFO, Segcache's time order); reads do not count. */
public final class FifoReclaimOrder implements ReclaimOrder {
    private final ArrayDeque<Integer> written = new ArrayDeque<>();

    @Override
    public void written(int segment) {
        written.add(segment);
    }

    @Override
    public void read(int segment) {
    }

    @Override
    public int next() {
        Integer oldest = written.peek();
        return oldest == null ? -1 : oldest;
    }

    @Override
    public int[] coldest(IntPredicate which, int max) {
        return written.stream().mapToInt(Integer::intValue).filter(which).limit(max).toArray();
    }

    @Override
    public boolean take(int segment) {
        return written.remove(segment);
    }

    @Override
    public int victim() {
        Integer oldest = written.poll();
        return oldest == null ? -1 : oldest;
    }
}

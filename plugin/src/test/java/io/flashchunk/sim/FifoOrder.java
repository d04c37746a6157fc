package io.flashchunk.sim;

import java.util.ArrayDeque;

/** The oldest sealed segment first (Navy's region FIFO, Segcache's time order). */
final class FifoOrder implements EvictionOrder {
    private final ArrayDeque<Integer> sealed = new ArrayDeque<>();

    @Override
    public void sealed(int segment) {
        sealed.addLast(segment);
    }

    @Override
    public void hit(int segment) {
        // reads do not change a segment's age
    }

    @Override
    public int next() {
        Integer oldest = sealed.peekFirst();
        return oldest == null ? -1 : oldest;
    }

    @Override
    public int victim() {
        Integer oldest = sealed.pollFirst();
        if (oldest == null) {
            throw new IllegalStateException("no sealed segment to reclaim");
        }
        return oldest;
    }
}

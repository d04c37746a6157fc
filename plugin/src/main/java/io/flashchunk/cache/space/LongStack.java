package io.flashchunk.cache.space;

import java.util.Arrays;

/** A growable stack of primitive longs: free-run candidates without boxing. Not thread-safe. */
final class LongStack {
    private long[] values = new long[16];
    private int size;

    void push(long value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    /** The top value, removed; call only when not {@link #isEmpty()}. */
    long pop() {
        return values[--size];
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    void clear() {
        size = 0;
        if (values.length > 1024) {
            values = new long[16];
        }
    }
}

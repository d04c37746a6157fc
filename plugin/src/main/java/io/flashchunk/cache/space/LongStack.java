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
        long value = values[--size];
        // A stack that held every free run of an empty device must not keep that array forever.
        if (values.length > 1024 && size < values.length / 4) {
            values = Arrays.copyOf(values, values.length / 2);
        }
        return value;
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

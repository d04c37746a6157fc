package io.flashchunk.ycsb.cassandra;

import java.util.function.Supplier;

/**
 * One instance shared by several users: the first {@link #acquire} opens it, the last
 * {@link #release} closes it. YCSB makes one {@code DB} per client thread, and they share one
 * driver session, which is expensive and thread-safe.
 */
final class SharedInstance<T extends AutoCloseable> {
    private T instance;
    private int users;

    synchronized T acquire(Supplier<T> opener) {
        if (instance == null) {
            instance = opener.get();
        }
        users++;
        return instance;
    }

    synchronized void release() throws Exception {
        if (users == 0) {
            throw new IllegalStateException("released more often than acquired");
        }
        users--;
        if (users == 0) {
            T closing = instance;
            instance = null;
            closing.close();
        }
    }

    synchronized int users() {
        return users;
    }
}

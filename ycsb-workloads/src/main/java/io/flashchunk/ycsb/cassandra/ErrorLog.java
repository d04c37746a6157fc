package io.flashchunk.ycsb.cassandra;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs failed operations without flooding: the first few in full, then only every
 * power-of-two-th, with the running count. YCSB's own report counts every failure anyway.
 */
final class ErrorLog {
    private static final Logger LOG = LoggerFactory.getLogger(CassandraDb.class);
    private static final long LOGGED_IN_FULL = 10;

    private final AtomicLong failures = new AtomicLong();

    void report(String operation, String key, Exception e) {
        long count = failures.incrementAndGet();
        if (count <= LOGGED_IN_FULL) {
            LOG.warn("{} of key {} failed", operation, key, e);
        } else if (Long.bitCount(count) == 1) {
            LOG.warn("{} failed operations so far; latest: {} of key {}: {}", count, operation, key, e.toString());
        }
    }

    long failures() {
        return failures.get();
    }
}

package io.flashchunk.sim;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * Admits a chunk to flash on its second miss: the first only leaves its key in a small Caffeine
 * cache of keys (W-TinyLFU, so keys missed often outlast keys missed once), sized as a share of the
 * chunks flash holds so that its memory stays a small part of the index's.
 */
final class SecondMissAdmission implements Admission {
    private final Cache<Long, Boolean> missedOnce;

    SecondMissAdmission(long keys) {
        missedOnce = Caffeine.newBuilder().maximumSize(Math.max(1, keys)).executor(Runnable::run).build();
    }

    @Override
    public void accessed(long key) {
        // only misses count
    }

    @Override
    public boolean admit(long key, long victim) {
        if (missedOnce.getIfPresent(key) != null) {
            missedOnce.invalidate(key);
            return true;
        }
        missedOnce.put(key, Boolean.TRUE);
        return false;
    }
}

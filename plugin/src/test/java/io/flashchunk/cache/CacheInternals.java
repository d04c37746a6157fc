package io.flashchunk.cache;

import io.flashchunk.cache.engine.CacheEngine;

/** The engine behind a {@link SegmentFlashCache}, for the benchmarks module: the cache keeps it package-private. */
public final class CacheInternals {
    private CacheInternals() {
    }

    public static CacheEngine engine(SegmentFlashCache cache) {
        return cache.engine();
    }
}

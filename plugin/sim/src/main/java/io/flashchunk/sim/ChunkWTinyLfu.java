package io.flashchunk.sim;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * The per-chunk engine's design (the product's engine before the compact one, kept here as the
 * baseline the engine's policy is judged against): Caffeine's W-TinyLFU over single chunks,
 * each weighing the power-of-two run of 4 KiB blocks its buddy allocator gave it, every miss
 * admitted and written once. As in that engine, the index may fill only {@value #INDEX_SHARE} of the
 * flash: the rest was the buddy allocator's reserve against fragmentation (10% by default).
 */
final class ChunkWTinyLfu implements SimulatedCache {
    static final int BLOCK_BYTES = 4096;
    static final double INDEX_SHARE = 0.9;

    private final Cache<Long, Integer> chunks;
    private long admitted;

    ChunkWTinyLfu(long capacityBytes) {
        chunks = Caffeine.newBuilder()
                .maximumWeight((long) (INDEX_SHARE * capacityBytes / BLOCK_BYTES))
                .weigher((Long key, Integer blocks) -> blocks)
                .executor(Runnable::run) // eviction inside the call, as a replay needs
                .build();
    }

    static int runBlocks(int bytes) {
        int blocks = (bytes + BLOCK_BYTES - 1) / BLOCK_BYTES;
        return Integer.highestOneBit(blocks) == blocks ? blocks : Integer.highestOneBit(blocks) << 1;
    }

    @Override
    public boolean access(long key, int bytes) {
        if (chunks.getIfPresent(key) != null) {
            return true;
        }
        int blocks = runBlocks(bytes);
        chunks.put(key, blocks);
        admitted += (long) blocks * BLOCK_BYTES;
        return false;
    }

    @Override
    public long admittedBytes() {
        return admitted;
    }

    @Override
    public long writtenBytes() {
        return admitted;
    }
}

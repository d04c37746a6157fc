package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.engine.CacheInspection;
import io.flashchunk.cache.upgrade.PerChunkEngine;
import java.io.IOException;

/**
 * Recognises a device of the removed per-chunk engine by its superblock (the FlashChunk magic with
 * format version {@link PerChunkEngine#SUPERBLOCK_VERSION}). This version reads nothing
 * else of that format: the cache reformats such a device at start, so the tool only names it.
 */
final class PerChunkFormat {
    private PerChunkFormat() {
    }

    /**
     * Why the tool will not read the device, naming its path, or null when block 0 is not the
     * per-chunk engine's superblock. A block 0 that cannot be read is null here too: the
     * superblock's own read reports it.
     */
    static String problem(StorageDriver driver) {
        try {
            if (!PerChunkEngine.holdsFormat(CacheInspection.readSuperblock(driver))) {
                return null;
            }
        } catch (IOException e) {
            return null;
        }
        return PerChunkEngine.notReadByTool(driver.path().toString());
    }
}

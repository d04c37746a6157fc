package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.checkpoint.CheckpointImage;
import io.flashchunk.cache.index.ChunkKeys;
import io.flashchunk.cache.index.ChunkLocation;
import java.util.Comparator;
import java.util.function.Consumer;

/** The entries of the newest valid checkpoint of each device, decoded. */
final class CacheEntries {
    /** By space, then file path, then position: how list prints them. */
    static final Comparator<CacheEntry> BY_FILE = Comparator.comparingInt(CacheEntry::space)
            .thenComparing(entry -> entry.file().path())
            .thenComparingLong(CacheEntry::position);

    private CacheEntries() {
    }

    /** How many entries {@link #forEach} gives for the device. */
    static long count(DeviceScan scan) {
        CheckpointImage image = scan.newestImage();
        return image == null ? 0 : image.entryCount();
    }

    /**
     * Gives the entries of one device's newest valid checkpoint, in the order the checkpoint holds them,
     * decoding each only when it is its turn: a large cache has tens of millions.
     */
    static void forEach(DeviceScan scan, Consumer<CacheEntry> action) {
        CheckpointImage image = scan.newestImage();
        if (image == null) {
            return;
        }
        for (int i = 0; i < image.entryCount(); i++) {
            long location = image.location(i);
            action.accept(new CacheEntry(ChunkLocation.space(location), scan.path(), image.fileId(i),
                    image.files().get(image.fileId(i)), ChunkKeys.position(image.key(i)),
                    ChunkLocation.length(location), ChunkLocation.lba(location), ChunkLocation.stamp(location),
                    image.crc(i)));
        }
    }
}

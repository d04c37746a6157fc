package io.flashchunk.cache.files;

import java.util.Map;

/**
 * What a checkpoint names besides the index: the files whose chunks it may hold and the next file id
 * (the adapter's registry). Read by the checkpoint after it has named its segments, so that every
 * chunk it names belongs to a file in the table and below the next id.
 */
public interface NamedFiles {
    FileTableCodec.Encoded table();

    int nextFileId();

    /**
     * Whether chunks of this file id may still be served. Chunks of a dead file (invalidated, or
     * dropped at a restart) stay on flash until their segments are reclaimed; the writer neither
     * weighs new chunks against them at admission nor writes them again. Any thread.
     */
    boolean isLive(int fileId);

    /**
     * Whether chunks of this file id are now to be stored as they are ({@link CachedFile#storesUncompressed}):
     * reinsertion (when it fits in the share) and hot chunk moves then write a chunk of it read
     * compressed again uncompressed, so that turning {@code chunks_on_flash} off leaves fewer
     * compressed chunks with each pass of the reclaim order.
     * Any thread; false when not known.
     */
    default boolean storesUncompressed(int fileId) {
        return false;
    }

    /**
     * Once, after recovery and before the writer starts: the files the recovered checkpoint named
     * (id to identity) and its next file id, each to be taken back only if provably the file it was.
     * The writer judges recovered chunks by {@link #isLive} from its first step, so this comes first.
     */
    default void recovered(Map<Integer, FileIdentity> named, int nextFileId) {
    }
}

package io.flashchunk.cache.files;


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
}

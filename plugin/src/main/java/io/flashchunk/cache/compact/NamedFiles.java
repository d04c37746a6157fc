package io.flashchunk.cache.compact;

import io.flashchunk.cache.checkpoint.FileTableCodec;

/**
 * What a checkpoint names besides the index: the files whose chunks it may hold and the next file id
 * (the adapter's registry). Read by the checkpoint after it has named its segments, so that every
 * chunk it names belongs to a file in the table and below the next id.
 */
public interface NamedFiles {
    FileTableCodec.Encoded table();

    int nextFileId();
}

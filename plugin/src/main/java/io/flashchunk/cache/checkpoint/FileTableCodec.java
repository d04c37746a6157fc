package io.flashchunk.cache.checkpoint;

import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.cache.index.FileIdentity;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.Collection;

/**
 * File records of a checkpoint: id (4), size (8), modified (8), inode (8), birth time (8), generation
 * (8), path length (2), path (UTF-8).
 */
final class FileTableCodec {
    private FileTableCodec() {
    }

    /** The encoded table, how many records it holds, and their ids (over-long paths are left out). */
    record Encoded(byte[] bytes, int count, BitSet ids) {
    }

    static Encoded encode(Collection<CachedFile> files) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer fixed = ByteBuffer.allocate(CheckpointFormat.FILE_RECORD_FIXED_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        int count = 0;
        BitSet ids = new BitSet();
        for (CachedFile file : files) {
            FileIdentity identity = file.identity();
            byte[] path = identity.path().getBytes(StandardCharsets.UTF_8);
            if (path.length == 0 || path.length > CheckpointFormat.MAX_PATH_BYTES) {
                continue;
            }
            fixed.clear();
            fixed.putInt(file.id()).putLong(identity.sizeBytes()).putLong(identity.modifiedMillis())
                    .putLong(identity.inode()).putLong(identity.birthNanos()).putLong(identity.generation())
                    .putShort((short) path.length);
            out.write(fixed.array(), 0, fixed.position());
            out.write(path, 0, path.length);
            ids.set(file.id());
            count++;
        }
        return new Encoded(out.toByteArray(), count, ids);
    }
}

package io.flashchunk.cache.files;

import io.flashchunk.cache.format.CheckpointFormat;
import io.flashchunk.cache.format.CheckpointFormatException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The file table of a checkpoint, encoded and decoded in one place for every checkpoint format,
 * recovery and the checkpoint tool: records of id (4), size (8), modified (8), inode (8), birth time
 * (8), generation (8), path length (2), path (UTF-8). Little-endian.
 */
public final class FileTableCodec {
    private FileTableCodec() {
    }

    /** The encoded table, how many records it holds, and their ids (over-long paths are left out). */
    public static final class Encoded {
        private final byte[] bytes;
        private final int count;
        private final BitSet ids;

        public Encoded(byte[] bytes, int count, BitSet ids) {
            this.bytes = bytes;
            this.count = count;
            this.ids = ids;
        }

        public byte[] bytes() {
            return bytes;
        }

        public int count() {
            return count;
        }

        public BitSet ids() {
            return ids;
        }

        @Override
        public String toString() {
            return "Encoded[bytes=" + bytes + ", count=" + count + ", ids=" + ids + "]";
        }
    }

    public static Encoded encode(Collection<CachedFile> files) {
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

    /**
     * Decodes {@code count} records filling {@code table} (position to limit) exactly, each id in
     * 1..{@code nextFileId - 1} and named once; anything else is refused with a message naming
     * {@code where} and the record.
     */
    public static Map<Integer, FileIdentity> decode(ByteBuffer table, int count, int nextFileId, String where)
            throws CheckpointFormatException {
        ByteBuffer in = table.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        Map<Integer, FileIdentity> files = new HashMap<>();
        for (int i = 0; i < count; i++) {
            if (in.remaining() < CheckpointFormat.FILE_RECORD_FIXED_BYTES) {
                throw new CheckpointFormatException(where + ": file table ends inside record " + i + " of " + count);
            }
            int id = in.getInt();
            long size = in.getLong();
            long modified = in.getLong();
            long inode = in.getLong();
            long birthNanos = in.getLong();
            long generation = in.getLong();
            int pathBytes = Short.toUnsignedInt(in.getShort());
            if (id <= 0 || id >= nextFileId) {
                throw new CheckpointFormatException(where + ": file record " + i + " has id " + id
                        + " outside 1.." + (nextFileId - 1));
            }
            if (pathBytes == 0 || pathBytes > CheckpointFormat.MAX_PATH_BYTES || pathBytes > in.remaining()) {
                throw new CheckpointFormatException(where + ": file record " + i + " has a path of " + pathBytes
                        + " bytes with " + in.remaining() + " left in the table");
            }
            if (size < 0) {
                throw new CheckpointFormatException(where + ": file record " + i + " has size " + size);
            }
            byte[] path = new byte[pathBytes];
            in.get(path);
            if (files.put(id, new FileIdentity(new String(path, StandardCharsets.UTF_8), size, modified, inode,
                    birthNanos, generation)) != null) {
                throw new CheckpointFormatException(where + ": file id " + id + " appears twice in the file table");
            }
        }
        if (in.hasRemaining()) {
            throw new CheckpointFormatException(where + ": " + in.remaining() + " bytes follow the last file record");
        }
        return files;
    }
}

package io.flashchunk.ycsb;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * Compresses values the way a Cassandra 5.0.9 table with {@code LZ4Compressor} does: packed back to
 * back into chunks (values spanning chunk edges, as rows do in an SSTable), each chunk compressed
 * on its own by {@code LZ4Factory.fastestInstance().fastCompressor()}, what Cassandra's
 * LZ4Compressor uses, from the library Cassandra ships (at.yawk.lz4:lz4-java).
 */
public final class Lz4Chunks {
    private final LZ4Compressor compressor = LZ4Factory.fastestInstance().fastCompressor();
    private final byte[] chunk;
    private final byte[] compressed;
    private int filled;
    private long originalBytes;
    private long compressedBytes;

    public Lz4Chunks(int chunkBytes) {
        chunk = new byte[chunkBytes];
        compressed = new byte[compressor.maxCompressedLength(chunkBytes)];
    }

    /** Appends a value; full chunks are compressed at once. */
    public void add(byte[] value) {
        for (int copied = 0; copied < value.length; ) {
            int n = Math.min(value.length - copied, chunk.length - filled);
            System.arraycopy(value, copied, chunk, filled, n);
            copied += n;
            filled += n;
            if (filled == chunk.length) {
                compressChunk();
            }
        }
    }

    public int fullChunks() {
        return (int) (originalBytes / chunk.length);
    }

    /** 1 - compressed / original over the full chunks so far (a partial last chunk is left out). */
    public double reduction() {
        if (originalBytes == 0) {
            throw new IllegalStateException("no full chunk yet");
        }
        return 1.0 - (double) compressedBytes / originalBytes;
    }

    private void compressChunk() {
        compressedBytes += compressor.compress(chunk, 0, chunk.length, compressed, 0, compressed.length);
        originalBytes += chunk.length;
        filled = 0;
    }
}

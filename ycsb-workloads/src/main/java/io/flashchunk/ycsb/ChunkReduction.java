package io.flashchunk.ycsb;

import java.util.SplittableRandom;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * Measures how much LZ4 shrinks a mixed byte stream when it is cut into chunks and each chunk is
 * compressed on its own, the way Cassandra compresses SSTable chunks.
 */
final class ChunkReduction {
    /** About this many bytes per measurement, whatever the chunk size: small chunks vary more. */
    private static final int SAMPLE_BYTES = 512 * 1024;

    /*
     * The pure-Java fast compressor produces the same bytes as the JNI one Cassandra normally
     * loads, and unlike it is present on every platform, so a seed gives the same values anywhere.
     */
    private final LZ4Compressor compressor = LZ4Factory.fastestJavaInstance().fastCompressor();
    private final int chunkBytes;
    private final int chunkCount;
    private final byte[] chunk;
    private final byte[] compressed;

    ChunkReduction(int chunkBytes) {
        this.chunkBytes = chunkBytes;
        this.chunkCount = Math.max(2, SAMPLE_BYTES / chunkBytes);
        this.chunk = new byte[chunkBytes];
        this.compressed = new byte[compressor.maxCompressedLength(chunkBytes)];
    }

    /**
     * The reduction (1 - compressed / original) of a sample of chunks of the stream that
     * {@code dictionary}, {@code randomShare} and a generator seeded with {@code seed} produce.
     * The same seed gives the same sample, so calibration compares mixes, not luck.
     */
    double measure(PhraseDictionary dictionary, double randomShare, long seed) {
        MixedByteStream stream = new MixedByteStream(dictionary, randomShare, new SplittableRandom(seed));
        long compressedBytes = 0;
        for (int i = 0; i < chunkCount; i++) {
            stream.fill(chunk, 0, chunkBytes);
            compressedBytes += compressor.compress(chunk, 0, chunkBytes, compressed, 0, compressed.length);
        }
        return 1.0 - (double) compressedBytes / ((long) chunkCount * chunkBytes);
    }
}

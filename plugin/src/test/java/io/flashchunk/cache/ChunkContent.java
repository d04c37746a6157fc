package io.flashchunk.cache;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/** The ground truth of test files: the bytes of a chunk follow from the file's seed and the position. */
public final class ChunkContent {
    private ChunkContent() {
    }

    public static byte[] bytes(long seed, long position, int length) {
        byte[] bytes = new byte[length];
        SplittableRandom random = new SplittableRandom(seed * 1_000_003L + position);
        for (int i = 0; i < length; i += 8) {
            long value = random.nextLong();
            for (int j = 0; j < 8 && i + j < length; j++) {
                bytes[i + j] = (byte) (value >>> (8 * j));
            }
        }
        return bytes;
    }

    /**
     * Bytes LZ4 shrinks to about {@code randomBytes} (and a little): that many bytes of the seed's and
     * position's, then zeros.
     */
    public static byte[] compressible(long seed, long position, int length, int randomBytes) {
        byte[] bytes = new byte[length];
        System.arraycopy(bytes(seed, position, Math.min(length, randomBytes)), 0, bytes, 0, Math.min(length, randomBytes));
        return bytes;
    }

    public static ByteBuffer buffer(long seed, long position, int length) {
        return ByteBuffer.wrap(bytes(seed, position, length));
    }

    public static byte[] read(CachedChunk chunk) {
        ByteBuffer buffer = chunk.buffer().duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }
}

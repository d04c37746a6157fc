package io.flashchunk.cache.files;

/**
 * A chunk's key in one long: the file id in the high 32 bits, the chunk position in 4096-byte units
 * in the low 32. Cassandra's chunk positions are multiples of the chunk size, itself a multiple of
 * 4096, so nothing is lost; files up to 16 TiB fit.
 */
public final class ChunkKeys {
    public static final long MAX_POSITION = 0xFFFF_FFFFL << 12;

    private ChunkKeys() {
    }

    /** The key, or -1 when the position cannot be cached (unaligned, or past 16 TiB). */
    public static long key(int fileId, long position) {
        if ((position & 4095) != 0 || position < 0 || position > MAX_POSITION) {
            return -1;
        }
        return (long) fileId << 32 | position >>> 12;
    }

    public static int fileId(long key) {
        return (int) (key >>> 32);
    }

    public static long position(long key) {
        return (key & 0xFFFF_FFFFL) << 12;
    }

    /** A well-mixed hash: file ids and positions are both small sequential numbers. */
    static int hash(long key) {
        long mixed = key * 0x9E37_79B9_7F4A_7C15L;
        return (int) (mixed ^ mixed >>> 32);
    }
}

package io.flashchunk.cache.admission;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * TinyLFU's doorkeeper: a Bloom filter of the keys read since the last reset, in front of a
 * {@link FrequencySketch}, so that a key's first read sets bits here and only its later reads take
 * counters there. Most keys a cache sees are read once in a sample; without a doorkeeper they crowd
 * the sketch's counters, and a small sketch overestimates everything.
 *
 * <p>Thread-safe without locks: bits are only set (atomically) until {@link #clear}, which a reset
 * runs; a key added while a clear is under way may be forgotten, an estimate off by one read.
 */
final class Doorkeeper {
    private static final VarHandle BITS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int HASHES = 2;

    private final long[] bits;
    private final long width;

    /** @param bitsTotal bits of the filter (rounded up to whole longs, 64 to 2^32) */
    Doorkeeper(long bitsTotal) {
        int longs = longsFor(bitsTotal);
        bits = new long[longs];
        width = 64L * longs;
    }

    /** Memory a filter of {@code bitsTotal} bits takes. */
    static long bytesFor(long bitsTotal) {
        return 8L * longsFor(bitsTotal);
    }

    private static int longsFor(long bitsTotal) {
        return (int) Math.max(1, Math.min(1 << 26, (bitsTotal + 63) / 64));
    }

    /** Memory the filter takes. */
    long bytes() {
        return 8L * bits.length;
    }

    /** Whether {@code key} may have been added since the last clear (false: it certainly was not). */
    boolean mightContain(long key) {
        long h = mix(key);
        for (int i = 0; i < HASHES; i++, h = next(h)) {
            long bit = bitOf(h);
            if (((long) BITS.getOpaque(bits, (int) (bit >>> 6)) & (1L << bit)) == 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Adds {@code key}; returns whether it may have been there already. A bit already set is only
     * read: a popular key's reads on every core do not write its cache line.
     */
    boolean add(long key) {
        long h = mix(key);
        boolean present = true;
        for (int i = 0; i < HASHES; i++, h = next(h)) {
            long bit = bitOf(h);
            long mask = 1L << bit;
            int word = (int) (bit >>> 6);
            if (((long) BITS.getOpaque(bits, word) & mask) == 0) {
                present &= ((long) BITS.getAndBitwiseOr(bits, word, mask) & mask) != 0;
            }
        }
        return present;
    }

    /** Forgets every key. */
    void clear() {
        for (int i = 0; i < bits.length; i++) {
            BITS.setOpaque(bits, i, 0L);
        }
    }

    private long bitOf(long h) {
        return ((h >>> 32) * width) >>> 32;
    }

    /** Another hash of the key, from the last. */
    private static long next(long h) {
        return mix(h + 0x9E3779B97F4A7C15L);
    }

    /** MurmurHash3's 64-bit finaliser over the key and a seed of its own, apart from the sketch's rows. */
    private static long mix(long key) {
        long h = key ^ 0x2545F4914F6CDD1DL;
        h = (h ^ (h >>> 33)) * 0xFF51AFD7ED558CCDL;
        h = (h ^ (h >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return h ^ (h >>> 33);
    }
}

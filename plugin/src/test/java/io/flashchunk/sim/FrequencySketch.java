package io.flashchunk.sim;

/**
 * How often each key was read lately, estimated in 4-bit counters (a count-min sketch, as TinyLFU
 * keeps): four rows of counters, a key's estimate the least of its four, and every counter halved
 * after ten reads per key the sketch is sized for, so that old popularity fades. Sized by default
 * as Caffeine sizes its own: four counters a row per key, so 8 bytes per key (a cost the compact
 * index must count); one counter a row per key costs 2 bytes.
 */
final class FrequencySketch {
    private static final int MAX = 15;
    private static final long[] SEEDS = {0x9E3779B97F4A7C15L, 0xC2B2AE3D27D4EB4FL, 0x165667B19E3779F9L,
        0xD6E8FEB86659FD93L};

    private final long[] table;
    private final int mask;
    private final long resetAfter;
    private long increments;

    /** @param keys the keys whose counts should stay apart (the chunks flash holds) */
    FrequencySketch(long keys) {
        this(keys, 4);
    }

    /** @param countersPerKey counters in each row per key: 4 as Caffeine (8 bytes a key), 1 for 2 bytes */
    FrequencySketch(long keys, int countersPerKey) {
        long counters = Math.max(16, Math.min(1 << 28, countersPerKey * keys)); // per row
        int width = Long.bitCount(counters) == 1 ? (int) counters : Integer.highestOneBit((int) counters) << 1;
        table = new long[width / 16 * 4]; // 16 counters per long, 4 rows
        mask = width - 1;
        resetAfter = 10L * Math.max(1, keys);
    }

    /** Memory the counters take. */
    long bytes() {
        return 8L * table.length;
    }

    int frequency(long key) {
        int least = MAX;
        for (int row = 0; row < 4; row++) {
            least = Math.min(least, counter(row, index(key, row)));
        }
        return least;
    }

    /** Counts a read; only the key's smallest counters grow (conservative update). */
    void increment(long key) {
        int least = frequency(key);
        if (least < MAX) {
            for (int row = 0; row < 4; row++) {
                int at = index(key, row);
                if (counter(row, at) == least) {
                    table[slot(row, at)] += 1L << shift(at);
                }
            }
        }
        if (++increments >= resetAfter) {
            halve();
        }
    }

    private void halve() {
        for (int i = 0; i < table.length; i++) {
            table[i] = (table[i] >>> 1) & 0x7777_7777_7777_7777L;
        }
        increments /= 2;
    }

    /** MurmurHash3's 64-bit finaliser over the key and the row's seed: every key bit moves every index bit. */
    private int index(long key, int row) {
        long h = key ^ SEEDS[row];
        h = (h ^ (h >>> 33)) * 0xFF51AFD7ED558CCDL;
        h = (h ^ (h >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return (int) (h ^ (h >>> 33)) & mask;
    }

    private int counter(int row, int at) {
        return (int) (table[slot(row, at)] >>> shift(at)) & 0xF;
    }

    private int slot(int row, int at) {
        return row * (table.length / 4) + (at >>> 4);
    }

    private static int shift(int at) {
        return (at & 15) << 2;
    }
}

package io.flashchunk.cache.admission;

import io.flashchunk.cache.engine.MemoryBudget;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How often each key was read lately, estimated in 4-bit counters (a count-min sketch, as TinyLFU
 * keeps): four rows of counters, a key's estimate the least of its four, and every counter halved
 * after a number of reads per key the sketch is sized for (its sample: ten unless told, as Caffeine's;
 * the engine takes 20, {@code CacheConfig.DEFAULT_ADMISSION_SAMPLE_READS}),
 * so that old popularity fades. With four counters a row per key (Caffeine's sizing) it costs 8 bytes
 * a key; with two, 4 bytes, the engine's default (see {@link MemoryBudget}); with one, 2 bytes
 * (docs/cache-simulator.md measures what each costs in hits). An optional
 * {@link Doorkeeper} takes each key's first read since the last halving, so keys read once take no
 * counters (TinyLFU's doorkeeper; 1 byte a key more at 8 bits, and most of the small sketch's lost
 * hits back).
 *
 * <p>Thread-safe without locks: a counter grows by compare-and-set, only from the key's current
 * least (conservative update) and never past 15, so no counter overflows into its neighbour. Two
 * reads of one key at the same moment may count once: an estimate, never a corrupted one.
 */
public final class FrequencySketch {
    /** Caffeine's sample: counts halved after ten reads per key the sketch is sized for. */
    public static final int SAMPLE_READS_PER_KEY = 10;
    private static final int MAX = 15;
    private static final int ROWS = 4;
    /** Counters a row at most: the width stays an int, the table at most 2^29 longs (4 GiB). */
    private static final long MAX_ROW_COUNTERS = (1L << 31) - 16;
    private static final long[] SEEDS = {0x9E3779B97F4A7C15L, 0xC2B2AE3D27D4EB4FL, 0x165667B19E3779F9L,
        0xD6E8FEB86659FD93L};
    private static final VarHandle TABLE = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] table;
    private final int width;
    private final int rowLongs;
    private final long resetAfter;
    private final AtomicLong increments = new AtomicLong();
    private final Doorkeeper doorkeeper;

    /** @param keys the keys whose counts should stay apart (the chunks flash holds) */
    public FrequencySketch(long keys) {
        this(keys, 4);
    }

    /** @param countersPerKey counters in each row per key: 4 as Caffeine (8 bytes a key), 1 for 2 bytes */
    public FrequencySketch(long keys, int countersPerKey) {
        this(keys, countersPerKey, 0);
    }

    /**
     * @param countersPerKey       as above
     * @param doorkeeperBitsPerKey bits of a {@link Doorkeeper} in front, per key (0: none); a key's
     *                             first read since a reset sets its bits there, the later ones count here
     */
    public FrequencySketch(long keys, int countersPerKey, int doorkeeperBitsPerKey) {
        this(keys, countersPerKey, doorkeeperBitsPerKey, SAMPLE_READS_PER_KEY);
    }

    /**
     * @param sampleReadsPerKey reads counted per key between two halvings: how far back "lately" reaches
     */
    public FrequencySketch(long keys, int countersPerKey, int doorkeeperBitsPerKey, int sampleReadsPerKey) {
        if (sampleReadsPerKey < 1) {
            throw new IllegalArgumentException("sample reads per key must be positive, got " + sampleReadsPerKey);
        }
        doorkeeper = doorkeeperBitsPerKey > 0 ? new Doorkeeper(doorkeeperBitsPerKey * Math.max(1, keys)) : null;
        rowLongs = rowLongs(keys, countersPerKey);
        width = rowLongs * 16;
        table = new long[rowLongs * ROWS]; // 16 counters per long
        resetAfter = (long) sampleReadsPerKey * Math.max(1, keys);
    }

    /** Memory a sketch of these sizes takes, counters and doorkeeper, as {@link #bytes} once built. */
    public static long bytesFor(long keys, int countersPerKey, int doorkeeperBitsPerKey) {
        return 8L * ROWS * rowLongs(keys, countersPerKey)
                + (doorkeeperBitsPerKey > 0 ? Doorkeeper.bytesFor(doorkeeperBitsPerKey * Math.max(1, keys)) : 0);
    }

    /**
     * Per row, rounded up to whole longs only: a key's counter is picked by multiplying, not masking,
     * so the width need not be a power of two, and one counter a key costs 2 bytes, not up to 4.
     */
    private static int rowLongs(long keys, int countersPerKey) {
        long counters = Math.max(16, Math.min(MAX_ROW_COUNTERS, countersPerKey * Math.max(1, keys)));
        return (int) ((counters + 15) / 16);
    }

    /** Memory the counters and the doorkeeper take. */
    public long bytes() {
        return 8L * table.length + (doorkeeper == null ? 0 : doorkeeper.bytes());
    }

    /** Reads of {@code key} lately, as estimated (a doorkeeper's one read counted, up to 16). */
    public int frequency(long key) {
        int counted = counted(key);
        return doorkeeper != null && doorkeeper.mightContain(key) ? counted + 1 : counted;
    }

    private int counted(long key) {
        int least = MAX;
        for (int row = 0; row < ROWS; row++) {
            least = Math.min(least, counter(load(slot(row, index(key, row))), index(key, row)));
        }
        return least;
    }

    /** Counts a read: only the key's least counters grow (conservative update). */
    public void increment(long key) {
        int least = doorkeeper == null || doorkeeper.add(key) ? counted(key) : MAX;
        if (least < MAX) {
            for (int row = 0; row < ROWS; row++) {
                int at = index(key, row);
                int slot = slot(row, at);
                long value = load(slot);
                // A counter above the least is left alone; one raced past it by another read is too.
                while (counter(value, at) == least
                        && !TABLE.weakCompareAndSet(table, slot, value, value + (1L << shift(at)))) {
                    value = load(slot);
                }
            }
        }
        long count = increments.incrementAndGet();
        if (count >= resetAfter && increments.compareAndSet(count, count / 2)) {
            halve();
        }
    }

    /** Sum of every counter (tests: a counter that overflowed into its neighbour shows here). */
    long sumOfCounters() {
        long sum = 0;
        for (int slot = 0; slot < table.length; slot++) {
            for (int at = 0; at < 16; at++) {
                sum += counter(load(slot), at);
            }
        }
        return sum;
    }

    private void halve() {
        if (doorkeeper != null) {
            doorkeeper.clear();
        }
        for (int slot = 0; slot < table.length; slot++) {
            long value;
            do {
                value = load(slot);
            } while (!TABLE.weakCompareAndSet(table, slot, value, (value >>> 1) & 0x7777_7777_7777_7777L));
        }
    }

    private long load(int slot) {
        return (long) TABLE.getOpaque(table, slot);
    }

    /** MurmurHash3's 64-bit finaliser over the key and the row's seed: every key bit moves every index bit. */
    private int index(long key, int row) {
        long h = key ^ SEEDS[row];
        h = (h ^ (h >>> 33)) * 0xFF51AFD7ED558CCDL;
        h = (h ^ (h >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return (int) (((h ^ (h >>> 33)) & 0xFFFF_FFFFL) * width >>> 32);
    }

    private static int counter(long value, int at) {
        return (int) (value >>> shift(at)) & 0xF;
    }

    private int slot(int row, int at) {
        return row * rowLongs + (at >>> 4);
    }

    private static int shift(int at) {
        return (at & 15) << 2;
    }
}

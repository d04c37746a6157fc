package io.flashchunk.cache.index;

/**
 * Where a chunk is, in one long, so an entry's state changes with a single compare-and-set.
 *
 * <pre>
 * on flash  0 | space:6 | lba:34 | length-1:16 | stamp:7
 * pending   1 0 | ... | length-1:16 | 0         (in the write queue, not on flash yet)
 * dead      all ones                               (evicted or invalidated; terminal)
 * </pre>
 *
 * The stamp is the paper's version lock: it changes whenever the chunk moves, so a read that
 * started at the old place is recognised as stale even if the chunk later comes back to the same
 * LBA (that would take 128 moves during one read).
 */
public final class ChunkLocation {
    public static final long DEAD = -1L;
    public static final int MAX_SPACES = 1 << 6;
    public static final long MAX_LBA = (1L << 34) - 1;
    public static final int MAX_LENGTH = 1 << 16;
    public static final int STAMPS = 1 << 7;

    private static final long NOT_ON_FLASH = 1L << 63;
    private static final long PENDING_MARK = NOT_ON_FLASH;
    private static final int LENGTH_SHIFT = 7;
    private static final int LBA_SHIFT = 23;
    private static final int SPACE_SHIFT = 57;

    private ChunkLocation() {
    }

    public static long pending(int length) {
        checkLength(length);
        return PENDING_MARK | (long) (length - 1) << LENGTH_SHIFT;
    }

    public static long onFlash(int space, long lba, int length, int stamp) {
        if (space < 0 || space >= MAX_SPACES) {
            throw new IllegalArgumentException("space " + space + " is outside 0.." + (MAX_SPACES - 1));
        }
        if (lba < 0 || lba > MAX_LBA) {
            throw new IllegalArgumentException("LBA " + lba + " is outside 0.." + MAX_LBA);
        }
        checkLength(length);
        return (long) space << SPACE_SHIFT | lba << LBA_SHIFT | (long) (length - 1) << LENGTH_SHIFT
                | (stamp & (STAMPS - 1));
    }

    /** The same chunk at a new place, with the next stamp. */
    public static long moved(long from, int space, long lba) {
        return onFlash(space, lba, length(from), stamp(from) + 1);
    }

    public static boolean isOnFlash(long location) {
        return location >= 0;
    }

    public static boolean isPending(long location) {
        return location != DEAD && (location & NOT_ON_FLASH) != 0;
    }

    public static boolean isDead(long location) {
        return location == DEAD;
    }

    public static int space(long location) {
        return (int) (location >>> SPACE_SHIFT) & (MAX_SPACES - 1);
    }

    public static long lba(long location) {
        return (location >>> LBA_SHIFT) & MAX_LBA;
    }

    /** Bytes in the chunk; defined for pending and on-flash locations. */
    public static int length(long location) {
        return (int) ((location >>> LENGTH_SHIFT) & (MAX_LENGTH - 1)) + 1;
    }

    public static int stamp(long location) {
        return (int) (location & (STAMPS - 1));
    }

    /** Blocks a chunk of this many bytes occupies: the power of two at or above its block count. */
    public static int order(int length) {
        int blocks = (length + 4095) >>> 12;
        return 32 - Integer.numberOfLeadingZeros(blocks - 1);
    }

    public static String describe(long location) {
        if (isDead(location)) {
            return "dead";
        }
        if (isPending(location)) {
            return "pending(" + length(location) + " bytes)";
        }
        return "space " + space(location) + " LBA " + lba(location) + " (" + length(location) + " bytes, stamp "
                + stamp(location) + ")";
    }

    private static void checkLength(int length) {
        if (length < 1 || length > MAX_LENGTH) {
            throw new IllegalArgumentException("chunk length " + length + " is outside 1.." + MAX_LENGTH);
        }
    }
}

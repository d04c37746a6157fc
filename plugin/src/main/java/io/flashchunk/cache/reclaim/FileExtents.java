package io.flashchunk.cache.reclaim;

import io.flashchunk.cache.files.ChunkKeys;
import java.util.HashMap;
import java.util.Map;

/**
 * Per file id, the chunk positions it has had on flash: the highest, and a step all of them are
 * multiples of (Cassandra's chunk length, in 4096-byte units), so that when the file dies its keys
 * can be found in the index without a key stored there ({@link DeadFileSweep}). Learnt from every
 * append and, after a restart, from the recovered segments' summaries. About 80 bytes a file.
 * Writer thread only.
 */
final class FileExtents {
    /** What a file has had on flash, in 4096-byte units. */
    static final class Extent {
        long highest;
        long step;

        /** The position units {@code units} joins the extent: the step becomes the greatest common divisor. */
        void add(long units) {
            highest = Math.max(highest, units);
            step = gcd(step, units);
        }

        private static long gcd(long a, long b) {
            while (b != 0) {
                long t = a % b;
                a = b;
                b = t;
            }
            return a;
        }
    }

    private final Map<Integer, Extent> byFile = new HashMap<>();

    /** A chunk of {@code key} went to flash. */
    void add(long key) {
        byFile.computeIfAbsent(ChunkKeys.fileId(key), id -> new Extent()).add(ChunkKeys.position(key) >>> 12);
    }

    /** The file's extent, forgotten here (it died); null when none of its chunks was seen. */
    Extent remove(int fileId) {
        return byFile.remove(fileId);
    }

    int files() {
        return byFile.size();
    }
}

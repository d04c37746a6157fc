package io.flashchunk.sim;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import site.ycsb.generator.HotspotIntegerGenerator;
import site.ycsb.generator.NumberGenerator;
import site.ycsb.generator.ZipfianGenerator;

/** The simulator's traces: YCSB's own key distributions over chunks, a scan mix, and recorded reads. */
final class Traces {
    /** YCSB's hotspot: 30% of the chunks get 80% of the reads. */
    static final double HOT_SET = 0.3;
    static final double HOT_READS = 0.8;
    /** The scan mix: this many hotspot reads, then one scan of {@link #SCAN_CHUNKS} chunks read once. */
    static final int READS_BETWEEN_SCANS = 10_000;
    static final int SCAN_CHUNKS = 5_000;

    private Traces() {
    }

    static ChunkTrace hotspot(int chunks, int reads, int chunkBytes) {
        return generated("hotspot 30/80", new HotspotIntegerGenerator(0, chunks - 1, HOT_SET, HOT_READS), chunks,
                reads, chunkBytes);
    }

    static ChunkTrace zipfian(int chunks, int reads, int chunkBytes) {
        return generated("zipfian 0.99", new ZipfianGenerator(0, chunks - 1, ZipfianGenerator.ZIPFIAN_CONSTANT),
                chunks, reads, chunkBytes);
    }

    /**
     * Zipfian 0.99 in {@code phases} phases, each with other popular chunks: in each phase the ranks map to
     * chunks shifted by another {@code chunks / phases}, so the head of one phase is cold in the next
     * (new data becoming hot). How fast a policy forgets shows here.
     */
    static ChunkTrace zipfianMoving(int chunks, int reads, int chunkBytes, int phases) {
        NumberGenerator ranks = new ZipfianGenerator(0, chunks - 1, ZipfianGenerator.ZIPFIAN_CONSTANT);
        long[] keys = new long[reads];
        long shift = chunks / phases;
        for (int i = 0; i < reads; i++) {
            long phase = (long) i * phases / reads;
            keys[i] = (ranks.nextValue().longValue() + phase * shift) % chunks;
        }
        return new ChunkTrace("zipfian 0.99, moving " + phases + " times", keys, null, chunkBytes,
                (long) chunks * chunkBytes);
    }

    /**
     * Hotspot reads over {@code chunks} chunks, interrupted by scans: sequential runs from a random
     * start in another {@code chunks} that the hotspot reads never touch (a repair, a range query, a
     * compaction's validation); runs may overlap, so a scanned chunk is sometimes read again by a
     * later scan. A third of the reads are scans.
     */
    static ChunkTrace hotspotWithScans(int chunks, int reads, int chunkBytes, long seed) {
        NumberGenerator hot = new HotspotIntegerGenerator(0, chunks - 1, HOT_SET, HOT_READS);
        SplittableRandom random = new SplittableRandom(seed);
        long[] keys = new long[reads];
        int step = 0;
        while (step < reads) {
            for (int i = 0; i < READS_BETWEEN_SCANS && step < reads; i++) {
                keys[step++] = hot.nextValue().longValue();
            }
            long start = chunks + random.nextLong(chunks - SCAN_CHUNKS);
            for (int i = 0; i < SCAN_CHUNKS && step < reads; i++) {
                keys[step++] = start + i;
            }
        }
        return new ChunkTrace("hotspot 30/80 with scans", keys, null, chunkBytes, 2L * chunks * chunkBytes);
    }

    private static ChunkTrace generated(String name, NumberGenerator generator, int chunks, int reads,
            int chunkBytes) {
        long[] keys = new long[reads];
        for (int i = 0; i < reads; i++) {
            keys[i] = generator.nextValue().longValue();
        }
        return new ChunkTrace(name, keys, null, chunkBytes, (long) chunks * chunkBytes);
    }

    /**
     * Reads recorded from a node: big-endian {@code (long key, int bytes)} records, as the adapter's
     * chunk-key recorder writes them. The universe is the distinct chunks read, at their mean size.
     */
    static ChunkTrace recorded(Path file, String name) throws IOException {
        long records = Files.size(file) / (Long.BYTES + Integer.BYTES);
        if (records == 0 || records > Integer.MAX_VALUE) {
            throw new IOException(file + " holds " + records + " reads; a trace needs 1 to " + Integer.MAX_VALUE);
        }
        long[] keys = new long[(int) records];
        int[] sizes = new int[(int) records];
        long bytes = 0;
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 20);
                DataInputStream data = new DataInputStream(in)) {
            for (int i = 0; i < keys.length; i++) {
                keys[i] = data.readLong();
                sizes[i] = data.readInt();
                if (sizes[i] <= 0) {
                    throw new IOException(file + ": read " + i + " has " + sizes[i] + " bytes");
                }
                bytes += sizes[i];
            }
        } catch (EOFException e) {
            throw new IOException(file + " ends inside a read record", e);
        }
        long[] sorted = keys.clone();
        Arrays.sort(sorted);
        long distinct = sorted.length == 0 ? 0 : 1;
        for (int i = 1; i < sorted.length; i++) {
            distinct += sorted[i] != sorted[i - 1] ? 1 : 0;
        }
        int mean = (int) (bytes / keys.length);
        return new ChunkTrace(name, keys, sizes, mean, distinct * mean);
    }
}

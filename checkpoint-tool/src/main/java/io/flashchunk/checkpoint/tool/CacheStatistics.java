package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.index.ChunkLocation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Numbers over the newest valid checkpoints: per space (data blocks, blocks used by entries, entries),
 * per file (entries, bytes, over all spaces), and a histogram of chunk sizes (over all spaces).
 *
 * @param spaces one per device given, in order
 * @param files  by entries descending, then bytes descending, then path
 * @param sizes  one bucket per run size, 4K to 64K
 */
record CacheStatistics(List<SpaceFigures> spaces, List<FileFigures> files, List<SizeBucket> sizes) {
    /** Run sizes a chunk can take: 2^0 .. 2^4 blocks, 4K .. 64K. */
    static final int BUCKETS = ChunkLocation.order(ChunkLocation.MAX_LENGTH) + 1;

    /**
     * One device's address space.
     *
     * @param space      the space index its superblock names, or -1 without a valid superblock
     * @param dataBlocks data blocks of the space, 0 without a valid superblock
     * @param usedBlocks blocks the entries' runs take (a chunk takes a power-of-two run)
     * @param bytes      the entries' chunk bytes
     * @param area       the area of the checkpoint counted ("A" or "B"), or null when there is none
     * @param sequence   that checkpoint's sequence, or 0
     * @param note       why there is no checkpoint to count, or null
     */
    record SpaceFigures(String path, int space, long dataBlocks, long usedBlocks, long entries, long bytes,
                        String area, long sequence, String note) {
        double percentUsed() {
            return dataBlocks == 0 ? 0 : 100.0 * usedBlocks / dataBlocks;
        }
    }

    record FileFigures(String path, long entries, long bytes) {
    }

    /**
     * Chunks whose run is {@code runBlocks} blocks.
     *
     * @param shortChunks those of them shorter than the run (length not a power-of-two number of blocks)
     */
    record SizeBucket(int runBlocks, long chunks, long shortChunks, long bytes) {
        /** "4K" .. "64K". */
        String label() {
            return runBlocks * 4 + "K";
        }
    }

    static CacheStatistics of(List<DeviceScan> scans) {
        List<SpaceFigures> spaces = new ArrayList<>();
        Map<String, long[]> files = new LinkedHashMap<>();
        long[][] buckets = new long[BUCKETS][3];
        for (DeviceScan scan : scans) {
            long[] space = new long[3]; // entries, used blocks, bytes
            CacheEntries.forEach(scan, entry -> {
                space[0]++;
                space[1] += entry.runBlocks();
                space[2] += entry.length();
                long[] file = files.computeIfAbsent(entry.file().path(), path -> new long[2]);
                file[0]++;
                file[1] += entry.length();
                long[] bucket = buckets[Integer.numberOfTrailingZeros(entry.runBlocks())];
                bucket[0]++;
                bucket[1] += entry.isShort() ? 1 : 0;
                bucket[2] += entry.length();
            });
            AreaScan newest = scan.newest();
            spaces.add(new SpaceFigures(scan.path(),
                    scan.superblock() == null ? -1 : scan.superblock().spaceIndex(),
                    scan.superblock() == null ? 0 : scan.superblock().layout().dataBlocks(),
                    space[1], space[0], space[2],
                    newest == null ? null : newest.name(), newest == null ? 0 : newest.header().sequence(),
                    scan.whyNoCheckpoint()));
        }
        List<FileFigures> fileFigures = new ArrayList<>();
        files.forEach((path, counts) -> fileFigures.add(new FileFigures(path, counts[0], counts[1])));
        fileFigures.sort(Comparator.comparingLong(FileFigures::entries).reversed()
                .thenComparing(Comparator.comparingLong(FileFigures::bytes).reversed())
                .thenComparing(FileFigures::path));
        List<SizeBucket> sizes = new ArrayList<>();
        for (int order = 0; order < BUCKETS; order++) {
            sizes.add(new SizeBucket(1 << order, buckets[order][0], buckets[order][1], buckets[order][2]));
        }
        return new CacheStatistics(List.copyOf(spaces), List.copyOf(fileFigures), List.copyOf(sizes));
    }

    long totalDataBlocks() {
        return spaces.stream().mapToLong(SpaceFigures::dataBlocks).sum();
    }

    long totalUsedBlocks() {
        return spaces.stream().mapToLong(SpaceFigures::usedBlocks).sum();
    }

    long totalEntries() {
        return spaces.stream().mapToLong(SpaceFigures::entries).sum();
    }

    long totalBytes() {
        return spaces.stream().mapToLong(SpaceFigures::bytes).sum();
    }

    double totalPercentUsed() {
        return totalDataBlocks() == 0 ? 0 : 100.0 * totalUsedBlocks() / totalDataBlocks();
    }

    long totalShortChunks() {
        return sizes.stream().mapToLong(SizeBucket::shortChunks).sum();
    }
}

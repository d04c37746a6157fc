package io.flashchunk.cache.reclaim;

import io.flashchunk.cache.files.ChunkKeys;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.index.ChunkLocations;
import java.util.ArrayDeque;

/**
 * Takes a dead file's chunks out of the index as soon as it dies (compacted away, dropped, changed),
 * so that each segment's live chunks are known exactly ({@link io.flashchunk.cache.index.SegmentEntries})
 * and the segments they leave mostly dead go before the order's turn. The index holds no keys, so the
 * file's keys are asked for one by one, at every position its {@link FileExtents extent} allows, in
 * steps between the writer's other work. A lookup can name another key's record with the same tag
 * (about one lookup in 130,000 when the buckets are full): that chunk is dropped too, a miss later,
 * never a wrong byte. Writer thread only.
 */
public final class DeadFileSweep {
    private final FileExtents extents = new FileExtents();
    private final ChunkLocations locations;
    private final ArrayDeque<Job> jobs = new ArrayDeque<>();
    private volatile long removed; // read by stats from any thread
    private volatile int pendingFiles; // jobs' size, for any thread

    /** One dead file's keys still to look up. */
    private static final class Job {
        final int file;
        final long highest;
        final long step;
        long next;

        Job(int file, FileExtents.Extent extent) {
            this.file = file;
            this.highest = extent.highest;
            this.step = extent.step;
        }
    }

    public DeadFileSweep(ChunkLocations locations) {
        this.locations = locations;
    }

    /** A chunk of {@code key} is on flash: its file's extent covers it. */
    public void onFlash(long key) {
        extents.add(key);
    }

    /** The file died: its keys are looked up and taken out of the index by the coming {@link #sweep}s. */
    public void died(int fileId) {
        FileExtents.Extent extent = extents.remove(fileId);
        if (extent != null) {
            jobs.add(new Job(fileId, extent));
            pendingFiles = jobs.size();
        }
    }

    /** Whether dead files' keys are left to look up. */
    public boolean pending() {
        return !jobs.isEmpty();
    }

    /**
     * Looks up at most {@code max} keys of the dead files, taking those found out of the index;
     * returns whether more are left. A file not done within a call goes to the back of the line, so a
     * huge one does not hold the others up.
     */
    public boolean sweep(int max) {
        int probes = 0;
        while (probes < max && !jobs.isEmpty()) {
            Job job = jobs.poll();
            while (probes < max && job.next <= job.highest) {
                long key = ChunkKeys.key(job.file, job.next << 12);
                long address = locations.index().find(key);
                if (address != RecordAddress.NONE && locations.dropped(key, address)) {
                    removed++; // the writer's alone: no lost update
                }
                probes++;
                if (job.step == 0) {
                    job.next = job.highest + 1; // only position 0 was ever cached
                } else {
                    job.next += job.step;
                }
            }
            if (job.next <= job.highest) {
                jobs.add(job);
            }
        }
        pendingFiles = jobs.size();
        return !jobs.isEmpty();
    }

    /** Dead files whose keys are left to look up. Any thread. */
    public int pendingFiles() {
        return pendingFiles;
    }

    /** Entries of dead files taken out of the index so far. */
    public long removed() {
        return removed;
    }

    /** Files whose extents are known (for the memory they take). */
    public int filesKnown() {
        return extents.files();
    }
}

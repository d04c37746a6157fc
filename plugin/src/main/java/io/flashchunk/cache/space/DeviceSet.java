package io.flashchunk.cache.space;

import io.flashchunk.cache.format.DeviceLayout;
import io.flashchunk.cache.format.Superblock;
import io.flashchunk.device.BlockDevice;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * Which of the configured devices keep their cached chunks at start, and why each other one is
 * formatted: start's rule ({@link DeviceStart}), also the checkpoint tool's.
 *
 * <p>The cache is the last run of a cache instance that the devices' superblocks name: of the
 * (instance, run) pairs found, the one that reserved the highest segment sequences (it ran last),
 * then the one most devices hold, then the first device's. Each device of that run keeps its chunks
 * wherever it now stands in the list: a device's checkpoints say which address space their entries
 * were written for, and recovery moves them to the device's place. A device keeps its layout when the
 * segment size is the same and the device is as large as when it was laid out, or larger (then the
 * cache goes on using the part it was laid out on, and says so). Every other device is formatted into
 * the cache: a blank one (added), one of another instance (replaced, or moved from another node), one
 * of an earlier run of this cache (it missed a run: removed and listed again, or run apart from the
 * others), a second device holding one address space of the run (a copy), one that shrank or was
 * laid out with another segment size, or whose superblock does not check. Devices removed from the
 * list take their chunks with them: those are misses.
 *
 * <p>Why only one run: two runs apart (a device run on its own, then listed with the others again)
 * each gave out file ids and segment sequences from where they parted, so their checkpoints can name
 * one file id for two files, and what one run invalidated the other still holds. Within one run the
 * devices' checkpoints are one cache's.
 */
public final class DeviceSet {
    private final UUID instance;
    private final long runId;
    private final boolean unchanged;
    private final List<DeviceLayout> kept;
    private final List<Integer> formerSpaces;
    private final List<String> reasons;
    private final List<String> grown;

    private DeviceSet(UUID instance, long runId, boolean unchanged, List<DeviceLayout> kept, List<Integer> formerSpaces,
                      List<String> reasons, List<String> grown) {
        this.instance = instance;
        this.runId = runId;
        this.unchanged = unchanged;
        this.kept = Collections.unmodifiableList(kept);
        this.formerSpaces = Collections.unmodifiableList(formerSpaces);
        this.reasons = Collections.unmodifiableList(reasons);
        this.grown = Collections.unmodifiableList(grown);
    }

    /**
     * @param paths          the devices as configured, in order
     * @param capacityBlocks each device's capacity now
     * @param superblocks    each device's superblock, or null (blank, or no superblock that checks)
     * @param unreadable     each device's reason for having none that checks, or null (blank, or one that checks)
     * @param segmentBytes   the configured segment size (0: the chosen run's, as the checkpoint tool judges)
     */
    public static DeviceSet decide(List<String> paths, List<Long> capacityBlocks, List<Superblock> superblocks,
                                   List<String> unreadable, int segmentBytes) {
        int count = paths.size();
        Superblock chosen = chooseRun(superblocks);
        UUID instance = chosen == null ? null : chosen.instance();
        long run = chosen == null ? 0 : chosen.runId();
        // The segment size to judge by: the configuration's, or (the checkpoint tool) the run's.
        int segment = segmentBytes > 0 || chosen == null ? segmentBytes : chosen.layout().segmentBytes();
        Map<Integer, String> spaceHolders = new HashMap<>();
        List<DeviceLayout> kept = new ArrayList<>(Collections.nCopies(count, null));
        List<Integer> formerSpaces = new ArrayList<>(Collections.nCopies(count, -1));
        List<String> reasons = new ArrayList<>(Collections.nCopies(count, null));
        List<String> grown = new ArrayList<>(Collections.nCopies(count, null));
        for (int i = 0; i < count; i++) {
            Superblock found = superblocks.get(i);
            String path = paths.get(i);
            if (found == null) {
                reasons.set(i, unreadable.get(i));
            } else if (!found.instance().equals(instance)) {
                reasons.set(i, path + " belongs to cache instance " + found.instance() + "; the cache kept is "
                        + instance + " (a device replaced, or moved from another cache)");
            } else if (found.runId() != run) {
                reasons.set(i, path + " holds this cache as it was before a run it was not part of (the device was "
                        + "removed and listed again, or run apart from the others)");
            } else if (spaceHolders.containsKey(found.spaceIndex())) {
                reasons.set(i, path + " holds address space " + found.spaceIndex() + " of the cache's last run, as "
                        + spaceHolders.get(found.spaceIndex()) + " does (a copy of it)");
            } else {
                DeviceLayout layout = found.layout();
                long capacity = capacityBlocks.get(i);
                String why = whyNotKept(path, layout, capacity, segment);
                if (why != null) {
                    reasons.set(i, why);
                } else {
                    kept.set(i, layout);
                    formerSpaces.set(i, found.spaceIndex());
                    spaceHolders.put(found.spaceIndex(), path);
                    if (layout.deviceBlocks() < capacity) {
                        grown.set(i, path + " grew from " + size(layout.deviceBlocks()) + " to " + size(capacity)
                                + " since the cache laid it out: the cache keeps its chunks and uses the first "
                                + size(layout.deviceBlocks()) + "; to give it all, let it format the device (with "
                                + "the node stopped, zero the device's first and last MiB: it starts cold once)");
                    }
                }
            }
        }
        boolean anyKept = kept.stream().anyMatch(layout -> layout != null);
        boolean unchanged = anyKept && run != 0;
        for (int i = 0; i < count && unchanged; i++) {
            unchanged = kept.get(i) != null && formerSpaces.get(i) == i && superblocks.get(i).spaceCount() == count;
        }
        return new DeviceSet(anyKept ? instance : null, anyKept ? run : 0, unchanged, kept, formerSpaces, reasons,
                grown);
    }

    /** Why {@code layout}, found on a device of {@code capacity} blocks, cannot be kept; null when it can. */
    private static String whyNotKept(String path, DeviceLayout layout, long capacity, int segmentBytes) {
        if (layout.segmentBytes() != segmentBytes) {
            return path + " was laid out with segments of " + layout.segmentBytes() + " bytes, the configuration "
                    + "gives " + segmentBytes + " (segment_size changed)";
        }
        if (layout.deviceBlocks() > capacity) {
            return path + " was laid out for " + size(layout.deviceBlocks()) + " and now holds " + size(capacity)
                    + " (capacity changed: the device resized or truncated, or a lower capacity setting)";
        }
        DeviceLayout expected;
        try {
            expected = DeviceLayout.expectedFor(layout, layout.deviceBlocks(), segmentBytes);
        } catch (IllegalArgumentException e) {
            expected = null;
        }
        if (!layout.equals(expected)) {
            return path + " was laid out as " + layout + ", which no release lays out a device of its size as"
                    + (expected == null ? "" : " (expected " + expected + ")");
        }
        return null;
    }

    /**
     * A superblock of the (instance, run) the cache is: the highest reservation, then the most
     * devices, then the first device's; null when there is none.
     */
    private static Superblock chooseRun(List<Superblock> superblocks) {
        Map<List<Object>, Integer> devices = new HashMap<>();
        Map<List<Object>, Long> reserved = new HashMap<>();
        for (Superblock found : superblocks) {
            if (found != null) {
                List<Object> run = List.of(found.instance(), found.runId());
                devices.merge(run, 1, Integer::sum);
                reserved.merge(run, found.sequenceLimit(), Math::max);
            }
        }
        Superblock best = null;
        for (Superblock found : superblocks) {
            if (found == null) {
                continue;
            }
            List<Object> run = List.of(found.instance(), found.runId());
            List<Object> bestRun = best == null ? null : List.of(best.instance(), best.runId());
            if (best == null || reserved.get(run) > reserved.get(bestRun)
                    || reserved.get(run).equals(reserved.get(bestRun)) && devices.get(run) > devices.get(bestRun)) {
                best = found;
            }
        }
        return best;
    }

    private static String size(long blocks) {
        long bytes = blocks * BlockDevice.BLOCK_SIZE;
        return bytes >= 1L << 30 ? String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30))
                : String.format(Locale.ROOT, "%d MiB", bytes >> 20);
    }

    /** The cache whose chunks some devices keep, or null when none does (every device is formatted). */
    public UUID instance() {
        return instance;
    }

    /** The run of the cache whose devices keep their chunks (0: none recorded, or none kept). */
    public long runId() {
        return runId;
    }

    /**
     * Whether the devices are the cache's last run's, each where it stood, none added or left out:
     * then a start goes on with the same run id; any change gives the set a new one.
     */
    public boolean unchanged() {
        return unchanged;
    }

    /** Whether device {@code i} keeps its chunks. */
    public boolean keeps(int i) {
        return kept.get(i) != null;
    }

    /** The layout device {@code i} keeps, or null when it is formatted. */
    public DeviceLayout keptLayout(int i) {
        return kept.get(i);
    }

    /** The address space device {@code i} held in the cache's last run (its superblock's), or -1 when formatted. */
    public int formerSpace(int i) {
        return formerSpaces.get(i);
    }

    /** Why device {@code i}, which holds something of a cache, is formatted; null when kept or blank. */
    public String reason(int i) {
        return reasons.get(i);
    }

    /** The line to log for device {@code i} when it is larger than its kept layout, or null. */
    public String grown(int i) {
        return grown.get(i);
    }

    /** Whether any device keeps its chunks in another address space than its last run's. */
    public boolean moved() {
        for (int i = 0; i < kept.size(); i++) {
            if (kept.get(i) != null && formerSpaces.get(i) != i) {
                return true;
            }
        }
        return false;
    }
}

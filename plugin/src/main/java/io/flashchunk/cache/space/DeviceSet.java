package io.flashchunk.cache.space;

import io.flashchunk.cache.format.DeviceLayout;
import io.flashchunk.cache.format.StartStamp;
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
 * <p>The cache kept is the one that started last: the (instance, run, start) of the superblock with
 * the highest sequence limit (every start raises it above every limit on the devices and the clock's
 * count, so a later start's is higher; runs apart raise it from where they parted, so the one that
 * started more often since, then the one whose start the clock puts last). Two starts at the same
 * limit and start time leave which ran last unknown: none is kept. Of that run, a device keeps its
 * chunks, wherever it now stands in the list, when it took part in the cache's last start: its
 * {@link StartStamp} is that start's, or, while no device of the last one is settled, the start it
 * went on from or another unsettled start that went on from that one (crashes while starts rewrote
 * the superblocks: none of those starts served). A device's checkpoints say which address space their entries were written for, and
 * recovery moves them to the device's place. A device keeps its layout when the segment size is the
 * same and the device is as large as when it was laid out, or larger (then the cache goes on using
 * the part it was laid out on, and says so). Every other device is formatted into the cache: a blank
 * one (added), one of another instance (replaced, or moved from another node), one of an earlier run
 * of this cache (it missed a run: removed and listed again, or run apart from the others), one that
 * missed a start (a copy of an earlier state of a device), two devices holding one address space (a
 * device and its copy: which is which is unknown), one that shrank or was laid out with another
 * segment size, or whose superblock does not check. Superblocks of a release before run ids (run 0)
 * are kept only as that release kept them: every device listed, each where it stood. Devices removed
 * from the list take their chunks with them: those are misses.
 *
 * <p>Why only one run, and only its last start's devices: two runs apart (a device run on its own,
 * then listed with the others again) each gave out file ids and segment sequences from where they
 * parted, so their checkpoints can name one file id for two files; and what the cache invalidated
 * while a device was away (or after a copy of it was taken) the device or copy still holds.
 */
public final class DeviceSet {
    private final UUID instance;
    private final long runId;
    private final long highestLimit;
    private final long goesOnFrom;
    private final boolean unchanged;
    private final List<DeviceLayout> kept;
    private final List<Integer> formerSpaces;
    private final List<String> reasons;
    private final List<String> grown;

    private DeviceSet(UUID instance, long runId, long highestLimit, long goesOnFrom, boolean unchanged,
                      List<DeviceLayout> kept, List<Integer> formerSpaces, List<String> reasons, List<String> grown) {
        this.instance = instance;
        this.runId = runId;
        this.highestLimit = highestLimit;
        this.goesOnFrom = goesOnFrom;
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
        Superblock last = lastStarted(superblocks);
        String ambiguous = last == null ? null : ambiguity(paths, superblocks, last);
        Superblock chosen = ambiguous == null ? last : null;
        UUID instance = chosen == null ? null : chosen.instance();
        StartStamp top = chosen == null ? StartStamp.NONE : chosen.stamp();
        long run = top.runId();
        long highest = chosen == null ? 0 : chosen.sequenceLimit();
        // While no device of the last start is settled, the start it went on from: a device still of that
        // one, or of another unsettled start that went on from it, was left behind by crashes during the
        // superblock writes of the starts since, none of which served.
        long behind = chosen == null ? 0 : behindStart(superblocks, chosen);
        // The first start of this release on devices a release before stamps left in place, cut while it
        // wrote them: the devices it did not reach are as that release left them, and it did not serve.
        boolean fromUnstamped = chosen != null && run != 0 && top.previousStartId() == 0
                && !anySettled(superblocks, chosen);
        boolean anyBehind = false;
        // The segment size to judge by: the configuration's, or (the checkpoint tool) the run's.
        int segment = segmentBytes > 0 || chosen == null ? segmentBytes : chosen.layout().segmentBytes();
        List<DeviceLayout> kept = new ArrayList<>(Collections.nCopies(count, null));
        List<Integer> formerSpaces = new ArrayList<>(Collections.nCopies(count, -1));
        List<String> reasons = new ArrayList<>(Collections.nCopies(count, null));
        List<String> grown = new ArrayList<>(Collections.nCopies(count, null));
        Map<Integer, List<Integer>> holders = new HashMap<>();
        for (int i = 0; i < count; i++) {
            Superblock found = superblocks.get(i);
            String path = paths.get(i);
            if (found == null) {
                reasons.set(i, unreadable.get(i));
            } else if (chosen == null) {
                reasons.set(i, ambiguous);
            } else if (!found.instance().equals(instance)) {
                reasons.set(i, path + " belongs to cache instance " + found.instance() + "; the cache kept is "
                        + instance + ", which started after it (a device replaced, or moved from another cache)");
            } else if (fromUnstamped && found.stamp().equals(StartStamp.NONE) && found.spaceIndex() == i
                    && found.spaceCount() == count) {
                holders.computeIfAbsent(found.spaceIndex(), space -> new ArrayList<>()).add(i);
                anyBehind = true;
            } else if (found.stamp().runId() != run) {
                reasons.set(i, path + " holds this cache as it was before a run it was not part of (the device was "
                        + "removed and listed again, or run apart from the others; or a power cut while a start that changed "
                        + "the list, or a start of a release before start stamps, rewrote the superblocks)");
            } else if (found.stamp().startId() != top.startId() && (behind == 0
                    || found.stamp().startId() != behind
                    && (found.stamp().settled() || found.stamp().previousStartId() != behind))) {
                reasons.set(i, path + " holds this cache as it was before a start it was not part of (a copy of an "
                        + "earlier state of a device, or one run apart from it)");
            } else {
                holders.computeIfAbsent(found.spaceIndex(), space -> new ArrayList<>()).add(i);
                anyBehind |= found.stamp().startId() != top.startId();
            }
        }
        for (Map.Entry<Integer, List<Integer>> space : holders.entrySet()) {
            List<Integer> devices = space.getValue();
            for (int i : devices) {
                if (devices.size() > 1) {
                    List<String> names = devices.stream().map(paths::get).collect(java.util.stream.Collectors.toList());
                    reasons.set(i, String.join(" and ", names) + " each hold address space " + space.getKey()
                            + " of the cache's last start: one is a copy of the other, and which holds the cache's "
                            + "latest state is unknown");
                } else if (run == 0 && !asAnEarlierReleaseLeftThem(superblocks, count, instance)) {
                    reasons.set(i, paths.get(i) + " was written by a release before start stamps, and the devices' "
                            + "superblocks do not show that it ran them together as listed (the list changed since, or "
                            + "a power cut during that release's start): which devices ran together is unknown (change "
                            + "the devices after one start of this release)");
                } else {
                    Superblock found = superblocks.get(i);
                    DeviceLayout layout = found.layout();
                    long capacity = capacityBlocks.get(i);
                    String why = whyNotKept(paths.get(i), layout, capacity, segment);
                    if (why != null) {
                        reasons.set(i, why);
                    } else {
                        kept.set(i, layout);
                        formerSpaces.set(i, found.spaceIndex());
                        if (layout.deviceBlocks() < capacity) {
                            grown.set(i, paths.get(i) + " grew from " + size(layout.deviceBlocks()) + " to "
                                    + size(capacity) + " since the cache laid it out: the cache keeps its chunks and "
                                    + "uses the first " + size(layout.deviceBlocks()) + "; to give it all, let it "
                                    + "format the device (with the node stopped, zero the device's first and last MiB: "
                                    + "it starts cold once)");
                        }
                    }
                }
            }
        }
        boolean anyKept = kept.stream().anyMatch(layout -> layout != null);
        boolean unchanged = anyKept;
        for (int i = 0; i < count && unchanged; i++) {
            unchanged = kept.get(i) != null && formerSpaces.get(i) == i && superblocks.get(i).spaceCount() == count;
        }
        // The next start goes on from the last start whose devices all hold its stamp.
        long goesOnFrom = anyBehind ? top.previousStartId() : top.startId();
        return new DeviceSet(anyKept ? instance : null, anyKept ? run : 0, anyKept ? highest : 0,
                anyKept ? goesOnFrom : 0, unchanged, kept, formerSpaces, reasons, grown);
    }

    /**
     * The superblock with the highest sequence limit, of those the one whose start the clock puts last
     * (the first such), or null when there is none.
     */
    private static Superblock lastStarted(List<Superblock> superblocks) {
        Superblock last = null;
        for (Superblock found : superblocks) {
            if (found != null && (last == null || LAST_STARTED.compare(found, last) > 0)) {
                last = found;
            }
        }
        return last;
    }

    private static final java.util.Comparator<Superblock> LAST_STARTED = java.util.Comparator
            .comparingLong(Superblock::sequenceLimit).thenComparingLong(found -> found.stamp().startedMillis());

    /**
     * Why which cache started last is unknown (another instance or run at the same highest limit), or
     * null when it is {@code last}'s run.
     */
    private static String ambiguity(List<String> paths, List<Superblock> superblocks, Superblock last) {
        for (int i = 0; i < superblocks.size(); i++) {
            Superblock found = superblocks.get(i);
            if (found != null && LAST_STARTED.compare(found, last) == 0
                    && (!found.instance().equals(last.instance()) || !found.stamp().sameStart(last.stamp()))) {
                return paths.get(i) + " holds a cache (or a run of one) that reserved the same segment sequences, at "
                        + "a start at the same time, as another device's: which of them ran last is unknown, so "
                        + "neither is kept";
            }
        }
        return null;
    }

    /**
     * The start {@code last}'s went on from, when no device of the last start is settled (a device of
     * the run still of that one, or of an unsettled start that also went on from it, is of the cache's
     * last state: none of the starts since served); else 0.
     */
    private static long behindStart(List<Superblock> superblocks, Superblock last) {
        return anySettled(superblocks, last) ? 0 : last.stamp().previousStartId();
    }

    /** Whether a device of {@code last}'s start holds it settled. */
    private static boolean anySettled(List<Superblock> superblocks, Superblock last) {
        for (Superblock found : superblocks) {
            if (found != null && found.instance().equals(last.instance()) && found.stamp().sameStart(last.stamp())
                    && found.stamp().settled()) {
                return true;
            }
        }
        return false;
    }

    /** Whether every device holds {@code instance} as a release before run ids left it: device i space i of them all. */
    private static boolean asAnEarlierReleaseLeftThem(List<Superblock> superblocks, int count, UUID instance) {
        for (int i = 0; i < count; i++) {
            Superblock found = superblocks.get(i);
            if (found == null || !found.instance().equals(instance) || found.stamp().runId() != 0
                    || found.spaceIndex() != i
                    || found.spaceCount() != count) {
                return false;
            }
        }
        return true;
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

    /** The highest sequence limit of the cache kept, the one its last start reserved (0: none kept). */
    public long highestLimit() {
        return highestLimit;
    }

    /**
     * The start the next one goes on from: the cache's last start whose kept devices all hold its
     * stamp (the last start, or the one before it when a crash left a kept device behind); 0: none.
     */
    public long goesOnFrom() {
        return goesOnFrom;
    }

    /**
     * Whether the devices are the cache's last run's, each where it stood, none added or left out:
     * then a start goes on with the same run id (or gives a set a release before stamps left its
     * first, in its reservation); any change gives the set a new one.
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

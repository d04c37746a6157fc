package io.flashchunk.cache.space;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.checkpoint.BodyReader;
import io.flashchunk.cache.checkpoint.Recovery;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.format.CheckpointAreas;
import io.flashchunk.cache.format.CheckpointFormat;
import io.flashchunk.cache.format.CheckpointFormatException;
import io.flashchunk.cache.format.CheckpointHeader;
import io.flashchunk.cache.format.DeviceLayout;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.StartStamp;
import io.flashchunk.cache.format.Superblock;
import io.flashchunk.cache.upgrade.PerChunkEngine;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides at start what the devices of the engine hold, from their superblocks: a cache whose
 * chunks the devices keep (then {@link Recovery} loads their checkpoints), blank devices (formatted),
 * devices of the removed per-chunk engine (reformatted, one log line naming each: their chunks are
 * dropped, never misread). When the list of devices changed (added, removed, reordered, a device
 * replaced or resized), {@link DeviceSet} says which devices keep their chunks; the others are
 * formatted into the same cache, each with a line that says why (strict mode refuses to start instead
 * when one of them holds a cache's superblock). A device that is neither blank nor a FlashChunk cache
 * is never written unless the operator set {@code format: force} for it. Blank means block 0 all zeros
 * and no signature found elsewhere ({@link ForeignSignatures}: a RAID member's superblock at 4 KiB, a
 * file system's at 64 KiB); a cache's device where another signature turns up is refused the same
 * way. A format first clears the signatures found within the part the cache uses.
 */
public final class DeviceStart {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceStart.class);

    /**
     * Segment sequences one start reserves: far more segment writes than a run makes (at 16 MiB a
     * segment, a zettabyte), and few enough that {@link CheckpointHeader#MAX_SEQUENCE} lasts
     * tens of millions of starts.
     */
    public static final long SEQUENCES_PER_START = 1L << 36;

    /**
     * What start found: the instance, each device's layout, whether every device was formatted (and
     * why), each device's address space in the cache's last run (-1 for a device formatted now), and
     * {@code sequenceFloor}: above the highest sequence limit the devices' superblocks held and the
     * clock's {@code millis << 20} (the first sequence of the range a format reserved); the start's
     * stamp, and the highest limit the superblocks hold as start left them.
     */
    public static final class Outcome {
        private final UUID instance;
        private final List<DeviceLayout> layouts;
        private final boolean formatted;
        private final String why;
        private final long sequenceFloor;
        private final List<Integer> formerSpaces;
        private final StartStamp stamp;
        private final long deviceLimit;

        public Outcome(UUID instance, List<DeviceLayout> layouts, boolean formatted, String why, long sequenceFloor,
                       List<Integer> formerSpaces, StartStamp stamp, long deviceLimit) {
            if (formerSpaces.size() != layouts.size()) {
                throw new IllegalArgumentException(formerSpaces.size() + " former spaces for " + layouts.size()
                        + " layouts");
            }
            this.instance = instance;
            this.layouts = layouts;
            this.formatted = formatted;
            this.why = why;
            this.sequenceFloor = sequenceFloor;
            this.formerSpaces = List.copyOf(formerSpaces);
            this.stamp = stamp;
            this.deviceLimit = deviceLimit;
        }

        /** This start's stamp (unsettled), written in every superblock it writes. */
        public StartStamp stamp() {
            return stamp;
        }

        /** The highest sequence limit the devices' superblocks hold as start left them. */
        public long deviceLimit() {
            return deviceLimit;
        }

        public UUID instance() {
            return instance;
        }

        public List<DeviceLayout> layouts() {
            return layouts;
        }

        /** Whether every device was formatted: nothing to recover. */
        public boolean formatted() {
            return formatted;
        }

        public String why() {
            return why;
        }

        public long sequenceFloor() {
            return sequenceFloor;
        }

        /** Device {@code i}'s address space in the cache's last run, or -1 when it was formatted at this start. */
        public int formerSpace(int i) {
            return formerSpaces.get(i);
        }

        /** The address spaces of {@code drivers} (the devices started, in order) as their layouts say. */
        public AddressSpaces spaces(List<StorageDriver> drivers) {
            if (drivers.size() != layouts.size()) {
                throw new IllegalArgumentException(drivers.size() + " drivers for " + layouts.size() + " layouts");
            }
            List<AddressSpace> spaces = new ArrayList<>();
            for (int i = 0; i < drivers.size(); i++) {
                spaces.add(AddressSpace.of(i, drivers.get(i), layouts.get(i)));
            }
            return new AddressSpaces(spaces);
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof Outcome)) {
                return false;
            }
            Outcome other = (Outcome) o;
            return Objects.equals(instance, other.instance)
                    && Objects.equals(layouts, other.layouts)
                    && formatted == other.formatted
                    && Objects.equals(why, other.why)
                    && sequenceFloor == other.sequenceFloor
                    && formerSpaces.equals(other.formerSpaces)
                    && stamp.equals(other.stamp) && deviceLimit == other.deviceLimit;
        }

        @Override
        public int hashCode() {
            return Objects.hash(instance, layouts, formatted, why, sequenceFloor, formerSpaces, stamp, deviceLimit);
        }

        @Override
        public String toString() {
            return "Outcome[instance=" + instance + ", layouts=" + layouts + ", formatted=" + formatted + ", why=" + why
                    + ", sequenceFloor=" + sequenceFloor + ", formerSpaces=" + formerSpaces + ", stamp=" + stamp
                    + ", deviceLimit=" + deviceLimit + "]";
        }
    }

    private DeviceStart() {
    }

    /**
     * @param forceFormat per device, whether the operator allowed formatting it whatever it holds
     * @param clockMillis the wall clock, for a format over devices whose earlier sequences are unknown
     */
    public static Outcome open(List<StorageDriver> drivers, int segmentBytes, boolean strict, List<Boolean> forceFormat,
                               LongSupplier clockMillis) throws IOException {
        int count = drivers.size();
        List<DeviceLayout> fresh = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        List<Long> capacities = new ArrayList<>();
        List<Superblock> superblocks = new ArrayList<>(Collections.nCopies(count, null));
        List<String> unreadable = new ArrayList<>(Collections.nCopies(count, null));
        boolean[] holdsCache = new boolean[count];
        List<String> foreign = new ArrayList<>();
        List<String> perChunk = new ArrayList<>();
        int blank = 0;
        // Above every sequence the devices' superblocks say was reserved, whichever cache wrote them,
        // so a format never numbers segments as an earlier cache's records on the same flash are.
        long reserved = 0;
        for (int i = 0; i < count; i++) {
            StorageDriver driver = drivers.get(i);
            paths.add(driver.path());
            capacities.add(driver.capacityBlocks());
            fresh.add(DeviceLayout.forDevice(driver.capacityBlocks(), segmentBytes));
            ByteBuffer block = readBlock(driver, 0);
            long magic = block.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(0);
            boolean force = i < forceFormat.size() && forceFormat.get(i);
            boolean blankBlock = DeviceContent.isBlank(block);
            holdsCache[i] = magic == CheckpointFormat.SUPERBLOCK_MAGIC;
            boolean blankOrOurs = blankBlock || PerChunkEngine.holdsFormat(block) || holdsCache[i];
            // Block 0 alone is not enough: an MD or bcache superblock at 4 KiB leaves it zero.
            String other = blankOrOurs && (!force || holdsCache[i]) ? ForeignSignatures.find(driver, blankBlock) : null;
            if (other != null && !force) {
                foreign.add(driver.path() + " holds " + (blankBlock ? "" : "a flash cache superblock but also ") + other);
            } else if (blankBlock) {
                blank++;
            } else if (PerChunkEngine.holdsFormat(block)) {
                // Reformatted even in strict mode (an upgrade), and never taken for a cache whose chunks it drops.
                perChunk.add(driver.path());
                holdsCache[i] = false;
                unreadable.set(i, "the per-chunk engine's format on " + driver.path());
            } else if (!holdsCache[i] && !force) {
                foreign.add(driver.path() + " holds " + DeviceContent.describe(block));
            } else if (!holdsCache[i]) {
                unreadable.set(i, driver.path() + " held " + DeviceContent.describe(block) + " (format: force)");
            } else if (other != null) {
                unreadable.set(i, driver.path() + " holds a flash cache superblock but also " + other);
            } else {
                try {
                    Superblock found = Superblock.decode(block, driver.path());
                    superblocks.set(i, found);
                    reserved = Math.max(reserved, found.sequenceLimit());
                } catch (CheckpointFormatException e) {
                    unreadable.set(i, e.getMessage());
                }
            }
        }
        // Every start reserves above the clock's microsecond-like count too: a blank block 0 does not
        // prove no record of ours lies further in (block 0 zeroed by hand), sequences were numbered that
        // way before reservations, and so a later start's limit is higher than an earlier one's even on
        // devices that ran apart (DeviceSet keeps the cache that started last).
        long now = clockMillis.getAsLong();
        long floor = Math.max(Math.max(1, reserved), now << 20);
        if (!foreign.isEmpty()) {
            throw new CacheRecoveryException("flash cache: will not format " + String.join("; ", foreign)
                    + ": a device is formatted only when it is blank or holds a flash cache. If it is meant for the cache "
                    + "(and what it holds may be destroyed), set format: force for it");
        }
        if (blank == count) {
            return format(drivers, fresh, "blank devices", floor, now);
        }
        for (String path : perChunk) {
            LOG.warn("{}", PerChunkEngine.reformatWarning(path));
        }
        DeviceSet set = DeviceSet.decide(paths, capacities, superblocks, unreadable, segmentBytes);
        // The chunks of a cache a format would drop (a forced device that held none drops nothing of ours).
        List<String> dropped = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (!set.keeps(i) && holdsCache[i]) {
                dropped.add(set.reason(i));
            }
        }
        // One reason may name several devices (a device and its copy; runs that tie): said once.
        String problem = String.join("; ", new java.util.LinkedHashSet<>(dropped));
        if (set.instance() == null && dropped.isEmpty()) {
            List<String> forced = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                if (set.reason(i) != null) {
                    forced.add(set.reason(i));
                }
            }
            return format(drivers, fresh, String.join("; ", new java.util.LinkedHashSet<>(forced)), floor, now);
        }
        if (set.instance() == null) {
            String message = "flash cache: cannot recover: " + problem;
            if (strict) {
                throw new CacheRecoveryException(message + "; strict mode refuses to format the devices");
            }
            LOG.warn("{}; starting empty on freshly formatted devices", message);
            return format(drivers, fresh, problem, floor, now);
        }
        if (strict && !dropped.isEmpty()) {
            throw new CacheRecoveryException("flash cache: cannot keep the chunks of " + problem
                    + "; strict mode refuses to format a device that holds a cache");
        }
        List<DeviceLayout> layouts = new ArrayList<>();
        List<Integer> formerSpaces = new ArrayList<>();
        List<String> formatted = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            layouts.add(set.keeps(i) ? set.keptLayout(i) : fresh.get(i));
            formerSpaces.add(set.formerSpace(i));
            if (!set.keeps(i)) {
                formatted.add(paths.get(i));
            }
        }
        // A set kept as a release before stamps left it gets its first run id from this start's reservation.
        StartStamp stamp = new StartStamp(set.unchanged() && set.runId() != 0 ? set.runId() : newId(), newId(),
                set.goesOnFrom(), now, false);
        long deviceLimit = set.highestLimit();
        if (!set.unchanged()) {
            // The devices kept join the new run at a new limit first, then the others are formatted into
            // it: a crash in between leaves the kept ones the run the next start keeps. A crash within
            // the kept ones' writes leaves those not yet written out of it (their chunks are dropped,
            // never misread): which devices ran together is then known only for the new run's.
            deviceLimit = limitAbove(floor);
            for (int i = 0; i < count; i++) {
                if (set.keeps(i)) {
                    writeSuperblock(drivers.get(i), new Superblock(set.instance(), i, count, layouts.get(i),
                            deviceLimit, stamp), "superblock write (the device set changed)");
                }
            }
        }
        for (int i = 0; i < count; i++) {
            if (set.keeps(i)) {
                if (set.grown(i) != null) {
                    LOG.warn("{}", set.grown(i));
                }
                if (set.formerSpace(i) != i) {
                    LOG.info("flash cache: {} was device {} of the cache's last run and is device {} now: its chunks "
                            + "stay with it", paths.get(i), set.formerSpace(i), i);
                }
                continue;
            }
            if (holdsCache[i] || set.reason(i) != null) {
                LOG.warn("flash cache: {}: formatting it into cache instance {}; the other devices keep their chunks",
                        set.reason(i), set.instance());
            } else {
                LOG.info("flash cache: {} is blank: formatted into cache instance {} (a device added)", paths.get(i),
                        set.instance());
            }
            formatInto(drivers.get(i), new Superblock(set.instance(), i, count, layouts.get(i), deviceLimit, stamp));
        }
        logLayouts(drivers, layouts);
        return new Outcome(set.instance(), List.copyOf(layouts), false,
                formatted.isEmpty() ? "recovered" : "recovered; formatted " + String.join(", ", formatted), floor,
                formerSpaces, stamp, deviceLimit);
    }

    /** One line a device whose size shapes its layout: larger sectors, an earlier release's, or cut short. */
    private static void logLayouts(List<StorageDriver> drivers, List<DeviceLayout> layouts) {
        for (int i = 0; i < layouts.size(); i++) {
            DeviceLayout layout = layouts.get(i);
            String path = drivers.get(i).path();
            long gib = layout.deviceBlocks() * BlockDevice.BLOCK_SIZE >> 30;
            if (layout.cutShort() && layout.sectorBytes() == RecordAddress.MIN_SECTOR_BYTES) {
                LOG.warn("{}: laid out by a release before 2026-11-28, the cache uses its first 4 TiB of {} GiB; to give "
                        + "it more, let it format the device (with the node stopped, zero the device's first and last "
                        + "MiB: the cache starts cold once; docs/operations.md, Upgrade)", path, gib);
            } else if (layout.cutShort()) {
                LOG.warn("{}: the cache uses its first {} GiB of {} GiB: a device's record addresses reach 256 TiB "
                        + "(set capacity to silence this)", path, layout.addressedBlocks() * BlockDevice.BLOCK_SIZE >> 30,
                        gib);
            } else if (layout.sectorBytes() > RecordAddress.MIN_SECTOR_BYTES) {
                LOG.info("{}: {} GiB, over 4 TiB: records align to {} bytes, so that record addresses reach all of it",
                        path, gib, layout.sectorBytes());
            }
        }
    }

    /**
     * Formats every device as one new cache ({@link #formatInto}). The superblock reserves the
     * sequences from {@code floor}: the new cache's first range.
     */
    private static Outcome format(List<StorageDriver> drivers, List<DeviceLayout> layouts, String why,
                                  long floor, long now) throws IOException {
        UUID instance = UUID.randomUUID();
        long limit = limitAbove(floor);
        StartStamp stamp = new StartStamp(newId(), newId(), 0, now, false);
        for (int i = 0; i < drivers.size(); i++) {
            formatInto(drivers.get(i), new Superblock(instance, i, drivers.size(), layouts.get(i), limit, stamp));
        }
        LOG.info("flash cache: formatted {} device(s) as cache instance {} ({})", drivers.size(), instance, why);
        logLayouts(drivers, layouts);
        return new Outcome(instance, List.copyOf(layouts), true, why, floor,
                Collections.nCopies(drivers.size(), -1), stamp, limit);
    }

    /**
     * Formats one device as {@code superblock} says: the signatures found cleared, both area headers
     * cleared, then the superblock, then a flush.
     */
    private static void formatInto(StorageDriver driver, Superblock superblock) throws IOException {
        ForeignSignatures.clear(driver);
        for (int area = 0; area < 2; area++) {
            driver.writeAndWait(superblock.layout().areas().start(area), AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE),
                    "clearing checkpoint area " + CheckpointAreas.name(area));
        }
        // The clears are durable before the superblock names the device the cache's: a device formatted into
        // the same cache (it missed a run or a start) must never come back with its old checkpoints.
        driver.flush();
        writeSuperblock(driver, superblock, "superblock write");
    }

    private static void writeSuperblock(StorageDriver driver, Superblock superblock, String what) throws IOException {
        driver.writeAndWait(0, superblock.encode(), what);
        driver.flush();
    }

    /** A run or start id (never 0, which means none recorded). */
    private static long newId() {
        long id = 0;
        while (id == 0) {
            id = new java.security.SecureRandom().nextLong();
        }
        return id;
    }

    /**
     * Reserves the segment sequences of this start, from {@code first} (above every sequence given out
     * before) and above the limit start left on the devices, before the run opens a segment: the
     * superblock of every device rewritten with the range's end, unsettled, each flushed; then, once
     * all hold it, rewritten settled. Returns the end (exclusive).
     *
     * <p>Two writes, so that a crash between them is told from a device that missed a start: while no
     * device of the start is settled, one still of the start before it was left behind by the crash
     * and the cache did not serve without it ({@link DeviceSet}).
     */
    public static long reserveSequences(List<StorageDriver> drivers, Outcome start, long first) throws IOException {
        long limit = limitAbove(Math.max(first, start.deviceLimit()));
        List<Superblock> reserved = new ArrayList<>();
        for (int i = 0; i < drivers.size(); i++) {
            reserved.add(new Superblock(start.instance(), i, drivers.size(), start.layouts().get(i), limit,
                    start.stamp()));
            writeSuperblock(drivers.get(i), reserved.get(i), "superblock write (segment sequences reserved)");
        }
        for (int i = 0; i < drivers.size(); i++) {
            writeSuperblock(drivers.get(i), reserved.get(i).asSettled(), "superblock write (start settled)");
        }
        return limit;
    }

    private static long limitAbove(long first) throws CacheRecoveryException {
        if (first < 1 || first > CheckpointHeader.MAX_SEQUENCE - SEQUENCES_PER_START) {
            throw new CacheRecoveryException("flash cache: segment sequence " + first + " leaves no room for another "
                    + "run's (the limit is " + CheckpointHeader.MAX_SEQUENCE + "): the cache stays off on these "
                    + "devices");
        }
        return first + SEQUENCES_PER_START;
    }

    /** One block, read within the device timeout. */
    public static ByteBuffer readBlock(StorageDriver driver, long lba) throws IOException {
        ByteBuffer block = ByteBuffer.allocate(BlockDevice.BLOCK_SIZE);
        try {
            BodyReader.read(driver.device(), lba, BlockDevice.BLOCK_SIZE, BlockDevice.BLOCK_SIZE, driver.timeoutNanos(),
                    (piece, offset) -> block.put(piece));
        } catch (CheckpointFormatException e) {
            throw new IOException(e.getMessage(), e);
        }
        return block.flip();
    }

}

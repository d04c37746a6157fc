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
import io.flashchunk.cache.format.Superblock;
import io.flashchunk.cache.upgrade.PerChunkEngine;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides at start what the devices of the engine hold, from their superblocks: a cache of
 * this configuration (then {@link Recovery} loads its checkpoints), blank devices (formatted),
 * devices of the removed per-chunk engine (reformatted, one log line naming each: their chunks are
 * dropped, never misread), or something else: a cache of other geometry or order, or a corrupt
 * superblock (one warning naming the device and the reason, then formatted; strict mode refuses to
 * start instead). A device that is neither blank nor a FlashChunk cache is never written unless the
 * operator set {@code format: force} for it. Blank means block 0 all zeros and no signature found
 * elsewhere ({@link ForeignSignatures}: a RAID member's superblock at 4 KiB, a file system's at
 * 64 KiB); a cache's device where another signature turns up is refused the same way. A format
 * first clears the signatures found within the part the cache uses.
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
     * What start found: the instance, each device's layout, whether the devices were formatted (and
     * why), and {@code sequenceFloor}: on recovered devices, the highest sequence limit their
     * superblocks hold (and at least the clock's {@code millis << 20} when one is of version 3, which
     * reserved none); on formatted ones, the first sequence of the range the format reserved.
     */
    public static final class Outcome {
        private final UUID instance;
        private final List<DeviceLayout> layouts;
        private final boolean formatted;
        private final String why;
        private final long sequenceFloor;

        public Outcome(UUID instance, List<DeviceLayout> layouts, boolean formatted, String why, long sequenceFloor) {
            this.instance = instance;
            this.layouts = layouts;
            this.formatted = formatted;
            this.why = why;
            this.sequenceFloor = sequenceFloor;
        }

        public UUID instance() {
            return instance;
        }

        public List<DeviceLayout> layouts() {
            return layouts;
        }

        public boolean formatted() {
            return formatted;
        }

        public String why() {
            return why;
        }

        public long sequenceFloor() {
            return sequenceFloor;
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
                    && sequenceFloor == other.sequenceFloor;
        }

        @Override
        public int hashCode() {
            return Objects.hash(instance, layouts, formatted, why, sequenceFloor);
        }

        @Override
        public String toString() {
            return "Outcome[instance=" + instance + ", layouts=" + layouts + ", formatted=" + formatted + ", why=" + why
                    + ", sequenceFloor=" + sequenceFloor + "]";
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
        List<DeviceLayout> layouts = new ArrayList<>();
        // What a recovery keeps: today's layouts, or an earlier release's where a device holds one
        List<DeviceLayout> kept = new ArrayList<>();
        List<String> foreign = new ArrayList<>();
        List<String> todays = new ArrayList<>();
        Superblock first = null;
        int blank = 0;
        String problem = null;
        // Above every sequence the devices' superblocks say was reserved, whichever cache wrote them,
        // so a format never numbers segments as an earlier cache's records on the same flash are.
        long reserved = 0;
        boolean unknownBefore = false;
        for (int i = 0; i < count; i++) {
            StorageDriver driver = drivers.get(i);
            DeviceLayout expected = DeviceLayout.forDevice(driver.capacityBlocks(), segmentBytes);
            layouts.add(expected);
            kept.add(expected);
            ByteBuffer block = readBlock(driver, 0);
            long magic = block.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(0);
            boolean force = i < forceFormat.size() && forceFormat.get(i);
            boolean blankBlock = DeviceContent.isBlank(block);
            boolean blankOrOurs = blankBlock || PerChunkEngine.holdsFormat(block)
                    || magic == CheckpointFormat.SUPERBLOCK_MAGIC;
            // Block 0 alone is not enough: an MD or bcache superblock at 4 KiB leaves it zero.
            String other = blankOrOurs && (!force || magic == CheckpointFormat.SUPERBLOCK_MAGIC)
                    ? ForeignSignatures.find(driver, blankBlock) : null;
            if (other != null && !force) {
                foreign.add(driver.path() + " holds " + (blankBlock ? "" : "a flash cache superblock but also ") + other);
            } else if (blankBlock) {
                blank++;
            } else if (PerChunkEngine.holdsFormat(block)) {
                todays.add(driver.path());
                unknownBefore = true;
            } else if (magic != CheckpointFormat.SUPERBLOCK_MAGIC && !force) {
                foreign.add(driver.path() + " holds " + DeviceContent.describe(block));
            } else if (other != null) {
                problem = problem != null ? problem : driver.path() + " holds a flash cache superblock but also " + other;
                unknownBefore = true;
            } else {
                try {
                    Superblock found = Superblock.decode(block, driver.path());
                    first = first == null ? found : first;
                    kept.set(i, DeviceLayout.expectedFor(found.layout(), driver.capacityBlocks(), segmentBytes));
                    problem = problem != null ? problem : found.mismatch(i, count, kept.get(i), first, driver.path());
                    reserved = Math.max(reserved, found.sequenceLimit());
                    unknownBefore |= found.sequenceLimit() == 0;
                } catch (CheckpointFormatException e) {
                    problem = problem != null ? problem : e.getMessage();
                    unknownBefore = true;
                }
            }
        }
        // A format starts above the clock's microsecond-like count too: a blank block 0 does not prove
        // no record of ours lies further in (block 0 zeroed by hand), and sequences were numbered that
        // way before reservations. A recovery does where what came before is unknown (a superblock
        // without a reservation, damaged, or not ours).
        long aboveClock = clockMillis.getAsLong() << 20;
        long formatFloor = Math.max(Math.max(1, reserved), aboveClock);
        long recoverFloor = Math.max(reserved, unknownBefore ? aboveClock : 0);
        if (!foreign.isEmpty()) {
            throw new CacheRecoveryException("flash cache: will not format " + String.join("; ", foreign)
                    + ": a device is formatted only when it is blank or holds a flash cache. If it is meant for the cache "
                    + "(and what it holds may be destroyed), set format: force for it");
        }
        if (blank == count) {
            return format(drivers, layouts, "blank devices", formatFloor);
        }
        if (!todays.isEmpty()) {
            for (String path : todays) {
                LOG.warn("{}", PerChunkEngine.reformatWarning(path));
            }
            return format(drivers, layouts, "the per-chunk engine's format on " + String.join(", ", todays),
                    formatFloor);
        }
        if (problem == null && blank > 0) {
            problem = "some devices are blank while others hold a cache (devices added or replaced)";
        }
        if (problem != null) {
            String message = "flash cache: cannot recover: " + problem;
            if (strict) {
                throw new CacheRecoveryException(message + "; strict mode refuses to format the devices");
            }
            LOG.warn("{}; starting empty on freshly formatted devices", message);
            return format(drivers, layouts, problem, formatFloor);
        }
        logLayouts(drivers, kept);
        return new Outcome(first.instance(), List.copyOf(kept), false, "recovered", recoverFloor);
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
     * Formats every device as one new cache: both area headers cleared, then the superblock, then a
     * flush. The superblock reserves the sequences from {@code floor}: the new cache's first range.
     */
    private static Outcome format(List<StorageDriver> drivers, List<DeviceLayout> layouts, String why,
                                  long floor) throws IOException {
        UUID instance = UUID.randomUUID();
        long limit = limitAbove(floor);
        for (int i = 0; i < drivers.size(); i++) {
            StorageDriver driver = drivers.get(i);
            DeviceLayout layout = layouts.get(i);
            ForeignSignatures.clear(driver);
            for (int area = 0; area < 2; area++) {
                driver.writeAndWait(layout.areas().start(area), AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE),
                        "clearing checkpoint area " + CheckpointAreas.name(area));
            }
            driver.writeAndWait(0, new Superblock(instance, i, drivers.size(), layout, limit).encode(),
                    "superblock write");
            driver.flush();
        }
        LOG.info("flash cache: formatted {} device(s) as cache instance {} ({})", drivers.size(), instance, why);
        logLayouts(drivers, layouts);
        return new Outcome(instance, List.copyOf(layouts), true, why, floor);
    }

    /**
     * Reserves the segment sequences of a run of a recovered cache, from {@code first} (above every
     * sequence given out before): the superblock of every device rewritten with the range's end, each
     * flushed, before the run opens a segment. Returns the end (exclusive).
     */
    public static long reserveSequences(List<StorageDriver> drivers, Outcome start, long first) throws IOException {
        long limit = limitAbove(first);
        for (int i = 0; i < drivers.size(); i++) {
            StorageDriver driver = drivers.get(i);
            Superblock superblock = new Superblock(start.instance(), i, drivers.size(),
                    start.layouts().get(i), limit);
            driver.writeAndWait(0, superblock.encode(), "superblock write (segment sequences reserved)");
            driver.flush();
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

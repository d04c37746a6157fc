package io.flashchunk.cache.checkpoint;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides at start what the devices hold: a cache of this configuration (then the newest valid
 * checkpoint of each space is loaded, falling back to the other area when the newest is torn), blank
 * devices (formatted), or something else: another cache, other geometry, a corrupt superblock. The
 * last is one warning line naming the device and the reason, and the cache starts empty on freshly
 * formatted devices, or, in strict mode, refuses to start.
 */
public final class Recovery {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    /** What start found. {@code images} has one checkpoint (or null) per space. */
    public record Outcome(UUID instance, List<SpaceLayout> layouts, long[][] areaSequences,
                          List<CheckpointImage> images, boolean formatted) {
    }

    private Recovery() {
    }

    /**
     * @param forceFormat per device, whether the operator allowed formatting it whatever it holds
     *                    ({@code format: force}); without that, a device that is neither blank nor
     *                    ours is never written, in strict mode or not
     */
    public static Outcome open(List<StorageDriver> drivers, boolean strict, List<Boolean> forceFormat)
            throws IOException {
        int count = drivers.size();
        List<String> foreign = new ArrayList<>();
        List<SpaceLayout> layouts = new ArrayList<>();
        List<Superblock> superblocks = new ArrayList<>();
        int blank = 0;
        String problem = null;
        for (int i = 0; i < count; i++) {
            BlockDevice device = drivers.get(i).device();
            SpaceLayout expected = SpaceLayout.forDevice(device.capacityBlocks());
            layouts.add(expected);
            ByteBuffer block;
            try {
                block = CheckpointReader.readBlocks(device, 0, 1, drivers.get(i).timeoutNanos());
            } catch (CheckpointFormatException e) {
                throw new IOException(e.getMessage(), e);
            }
            if (DeviceContent.isBlank(block)) {
                blank++;
                superblocks.add(null);
                continue;
            }
            if (block.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(0) != CheckpointFormat.SUPERBLOCK_MAGIC
                    && !(i < forceFormat.size() && forceFormat.get(i))) {
                foreign.add(device.path() + " holds " + DeviceContent.describe(block));
            }
            try {
                Superblock superblock = Superblock.decode(block, device.path());
                superblocks.add(superblock);
                if (problem == null) {
                    problem = mismatch(superblock, i, count, expected, superblocks.get(0), device.path());
                }
            } catch (CheckpointFormatException e) {
                superblocks.add(null);
                problem = problem == null ? e.getMessage() : problem;
            }
        }
        if (!foreign.isEmpty()) {
            throw new CacheRecoveryException("flash cache: will not format " + String.join("; ", foreign)
                    + ": a device is formatted only when it is blank or holds a flash cache. If it is meant for the cache "
                    + "(and what it holds may be destroyed), set format: force for it");
        }
        if (blank == count) {
            return format(drivers, layouts, "blank devices");
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
            return format(drivers, layouts, problem);
        }
        UUID instance = superblocks.get(0).instance();
        long[][] sequences = new long[count][2];
        List<CheckpointImage> images = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            images.add(newestValid(drivers.get(i), layouts.get(i), instance, i, sequences[i]));
        }
        return new Outcome(instance, List.copyOf(layouts), sequences, images, false);
    }

    private static String mismatch(Superblock found, int index, int count, SpaceLayout expected, Superblock first,
                                   String path) {
        if (found.spaceIndex() != index || found.spaceCount() != count) {
            return path + " holds address space " + found.spaceIndex() + " of " + found.spaceCount()
                    + ", but is configured as space " + index + " of " + count;
        }
        if (!found.layout().equals(expected)) {
            return path + " was laid out for " + found.layout().deviceBlocks() + " blocks, but is configured with "
                    + expected.deviceBlocks() + " (capacity changed)";
        }
        if (first != null && !found.instance().equals(first.instance())) {
            return path + " belongs to cache instance " + found.instance() + ", the first device to " + first.instance();
        }
        return null;
    }

    /**
     * Loads the newest checkpoint that passes every check, reading the older area's body only when the
     * newer one fails. Records each area's header sequence (0 when it has no valid header): the next
     * checkpoint overwrites the older area.
     */
    private static CheckpointImage newestValid(StorageDriver driver, SpaceLayout layout, UUID instance, int space,
                                               long[] sequences) {
        BlockDevice device = driver.device();
        for (int area = 0; area < 2; area++) {
            try {
                sequences[area] = CheckpointReader.readHeader(device, layout, area, driver.timeoutNanos()).sequence();
            } catch (CheckpointFormatException e) {
                sequences[area] = 0;
                if (!e.getMessage().contains("no checkpoint header (magic 0x0)")) {
                    LOG.warn("flash cache: ignoring {}", e.getMessage());
                }
            }
        }
        if (sequences[0] != 0 && sequences[0] == sequences[1]) {
            // Sequences are never reused, so this is no checkpoint of ours: neither can be trusted over the other.
            LOG.warn("flash cache: ignoring both checkpoint areas of {}: each holds checkpoint {}, so which is "
                    + "current cannot be told; this space starts empty", device.path(), sequences[0]);
            sequences[0] = 0;
            sequences[1] = 0;
        }
        int newer = sequences[0] >= sequences[1] ? 0 : 1;
        CheckpointImage newest = null;
        for (int area : new int[] {newer, 1 - newer}) {
            if (sequences[area] == 0) {
                continue;
            }
            try {
                newest = CheckpointReader.read(device, layout, area, instance, space, null, driver.timeoutNanos());
                break;
            } catch (CheckpointFormatException e) {
                sequences[area] = 0;
                LOG.warn("flash cache: ignoring {}", e.getMessage());
            }
        }
        if (newest != null) {
            LOG.info("flash cache: {} recovers checkpoint {} of {} ({} entries, {} files)", device.path(),
                    newest.header().sequence(), java.time.Instant.ofEpochMilli(newest.header().timestampMillis()),
                    newest.entryCount(), newest.files().size());
        }
        return newest;
    }

    private static Outcome format(List<StorageDriver> drivers, List<SpaceLayout> layouts, String why)
            throws IOException {
        UUID instance = UUID.randomUUID();
        for (int i = 0; i < drivers.size(); i++) {
            StorageDriver driver = drivers.get(i);
            SpaceLayout layout = layouts.get(i);
            ByteBuffer zero = AlignedBuffers.allocate(SpaceLayout.BLOCK_SIZE);
            write(driver, layout.areaStart(0), zero);
            write(driver, layout.areaStart(1), zero);
            write(driver, 0, new Superblock(instance, i, drivers.size(), layout).encode());
            driver.flush();
        }
        LOG.info("flash cache: formatted {} device(s) as cache instance {} ({})", drivers.size(), instance, why);
        return new Outcome(instance, List.copyOf(layouts), new long[drivers.size()][2],
                java.util.Collections.nCopies(drivers.size(), null), true);
    }

    private static void write(StorageDriver driver, long lba, ByteBuffer block) throws IOException {
        try {
            driver.writeAndWait(lba, block, "formatting write at block " + lba);
        } catch (IOException e) {
            throw new IOException("cannot format " + driver.path() + ": " + e.getMessage(), e);
        }
    }
}

package io.flashchunk.checkpoint.tool;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.checkpoint.CheckpointFormatException;
import io.flashchunk.cache.checkpoint.CheckpointHeader;
import io.flashchunk.cache.checkpoint.CheckpointImage;
import io.flashchunk.cache.checkpoint.CheckpointReader;
import io.flashchunk.cache.checkpoint.SpaceLayout;
import io.flashchunk.cache.checkpoint.Superblock;
import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;

/**
 * Reads a device's superblock and both checkpoint areas with the cache's own reader, so the tool
 * trusts exactly what recovery would. Each area is read against the device's own superblock
 * (instance and space index), so one device of a cache can be looked at alone; whether several
 * devices form one cache is {@link CacheSetCheck}'s question.
 */
final class DeviceScanner {
    private DeviceScanner() {
    }

    static DeviceScan scan(BlockDevice device) {
        String path = device.path();
        ByteBuffer block;
        try {
            block = readBlock(device, 0);
        } catch (CheckpointFormatException e) {
            return unusable(device, SuperblockState.INVALID, e.getMessage());
        }
        if (isZero(block)) {
            return unusable(device, SuperblockState.BLANK,
                    path + ": blank superblock (all zeros): the device was never formatted as a cache");
        }
        Superblock superblock;
        try {
            superblock = Superblock.decode(block, path);
        } catch (CheckpointFormatException e) {
            return unusable(device, SuperblockState.INVALID, e.getMessage());
        }
        List<AreaScan> areas = new ArrayList<>();
        for (int area = 0; area < 2; area++) {
            areas.add(scanArea(device, superblock, area));
        }
        // Only the newest checkpoint's entries are ever looked at again; the older body (20 bytes an
        // entry) is let go once checked, so a large device does not cost two bodies of memory.
        if (areas.get(0).image() != null && areas.get(1).image() != null) {
            int older = areas.get(0).header().sequence() >= areas.get(1).header().sequence() ? 1 : 0;
            AreaScan scan = areas.get(older);
            areas.set(older, new AreaScan(older, AreaState.VALID, scan.header(), null, null));
        }
        return new DeviceScan(path, device.capacityBlocks(), SuperblockState.VALID, superblock, null,
                geometryProblem(superblock.layout(), device), List.copyOf(areas));
    }

    private static DeviceScan unusable(BlockDevice device, SuperblockState state, String problem) {
        return new DeviceScan(device.path(), device.capacityBlocks(), state, null, problem, null, List.of());
    }

    private static AreaScan scanArea(BlockDevice device, Superblock superblock, int area) {
        SpaceLayout layout = superblock.layout();
        ByteBuffer headerBlock;
        try {
            headerBlock = readBlock(device, layout.areaStart(area));
        } catch (CheckpointFormatException e) {
            return new AreaScan(area, AreaState.INVALID, null, null, e.getMessage());
        }
        if (isZero(headerBlock)) {
            return new AreaScan(area, AreaState.EMPTY, null, null, null);
        }
        try {
            CheckpointImage image = CheckpointReader.read(device, layout, area, superblock.instance(),
                    superblock.spaceIndex(), null);
            return new AreaScan(area, AreaState.VALID, image.header(), image, null);
        } catch (CheckpointFormatException e) {
            return new AreaScan(area, AreaState.INVALID, headerIfReadable(headerBlock, device, area), null,
                    e.getMessage());
        } catch (RuntimeException e) {
            // The reader bounds what it loads by the area's size; should it still trip, a report beats a stack trace.
            return new AreaScan(area, AreaState.INVALID, headerIfReadable(headerBlock, device, area), null,
                    CheckpointReader.areaName(device, area) + ": cannot be loaded: " + e);
        }
    }

    /** The header of an area whose body (or ownership) is what failed, to show its sequence and counts. */
    private static CheckpointHeader headerIfReadable(ByteBuffer block, BlockDevice device, int area) {
        try {
            return CheckpointHeader.decode(block, CheckpointReader.areaName(device, area));
        } catch (CheckpointFormatException e) {
            return null;
        }
    }

    /**
     * The cache lays a device out with {@link SpaceLayout#forDevice}; a superblock whose geometry is
     * not that layout for its own block count was not written by the cache, and one laid out for
     * more blocks than the device has cannot be read. (Fewer is fine: a cache may use part of a device.)
     */
    private static String geometryProblem(SpaceLayout layout, BlockDevice device) {
        SpaceLayout expected;
        try {
            expected = SpaceLayout.forDevice(layout.deviceBlocks());
        } catch (IllegalArgumentException e) {
            return device.path() + ": superblock geometry is impossible: " + e.getMessage();
        }
        if (!expected.equals(layout)) {
            return device.path() + ": superblock geometry " + layout + " is not the cache's layout for "
                    + layout.deviceBlocks() + " blocks, " + expected;
        }
        if (layout.deviceBlocks() > device.capacityBlocks()) {
            return device.path() + ": laid out for " + layout.deviceBlocks() + " blocks, but the device has only "
                    + device.capacityBlocks();
        }
        return null;
    }

    static ByteBuffer readBlock(BlockDevice device, long lba) throws CheckpointFormatException {
        ByteBuffer block = AlignedBuffers.allocate(SpaceLayout.BLOCK_SIZE);
        try {
            device.read(lba, block).join();
        } catch (CompletionException | IllegalArgumentException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new CheckpointFormatException(device.path() + ": cannot read block " + lba + ": "
                    + cause.getMessage());
        }
        return block;
    }

    private static boolean isZero(ByteBuffer block) {
        for (int i = 0; i < block.limit(); i += 8) {
            if (block.getLong(i) != 0) {
                return false;
            }
        }
        return true;
    }
}

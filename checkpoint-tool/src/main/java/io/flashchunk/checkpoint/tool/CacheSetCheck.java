package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.checkpoint.Superblock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Whether the devices, in the order given, form one cache the way its recovery requires: device i
 * holds address space i of as many spaces as devices were given, all of one cache instance.
 * Devices without a valid superblock are left out (their own problem is reported elsewhere).
 */
final class CacheSetCheck {
    private CacheSetCheck() {
    }

    /** The instance all valid superblocks name, or null when they disagree or none is valid. */
    static UUID commonInstance(List<DeviceScan> scans) {
        UUID common = null;
        for (DeviceScan scan : scans) {
            if (scan.superblock() != null) {
                if (common != null && !common.equals(scan.superblock().instance())) {
                    return null;
                }
                common = scan.superblock().instance();
            }
        }
        return common;
    }

    /** The space count all valid superblocks name, or -1 when they disagree or none is valid. */
    static int commonSpaceCount(List<DeviceScan> scans) {
        int common = -1;
        for (DeviceScan scan : scans) {
            if (scan.superblock() != null) {
                if (common >= 0 && common != scan.superblock().spaceCount()) {
                    return -1;
                }
                common = scan.superblock().spaceCount();
            }
        }
        return common;
    }

    /** One message per disagreement, each naming the device. */
    static List<String> problems(List<DeviceScan> scans) {
        List<String> problems = new ArrayList<>();
        DeviceScan first = null;
        for (int i = 0; i < scans.size(); i++) {
            DeviceScan scan = scans.get(i);
            Superblock superblock = scan.superblock();
            if (superblock == null) {
                continue;
            }
            if (superblock.spaceCount() != scans.size()) {
                problems.add(scan.path() + ": belongs to a cache of " + superblock.spaceCount() + " device(s), but "
                        + scans.size() + " were given");
            }
            if (superblock.spaceIndex() != i) {
                problems.add(scan.path() + ": holds address space " + superblock.spaceIndex()
                        + ", but was given as device " + i + " (give the devices in the cache's configured order)");
            }
            if (first == null) {
                first = scan;
            } else if (!superblock.instance().equals(first.superblock().instance())) {
                problems.add(scan.path() + ": belongs to cache instance " + superblock.instance() + ", but "
                        + first.path() + " to " + first.superblock().instance());
            }
        }
        return problems;
    }
}

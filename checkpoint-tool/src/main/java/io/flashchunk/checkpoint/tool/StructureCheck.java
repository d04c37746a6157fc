package io.flashchunk.checkpoint.tool;

import java.util.List;

/**
 * The checks verify makes without reading cached data: every superblock (magic, version, checksum,
 * geometry), the devices together (instance, space count, order), and both areas of every device
 * with every check the cache's recovery makes on header and body.
 *
 * <p>What counts as a problem: a blank or invalid superblock (no cache could be recovered from the
 * set), an impossible geometry, devices that do not form one cache in the order given, and an
 * invalid area (torn or corrupt header or body, or written for another cache or space). An empty
 * area (all-zero header) is not a problem: a formatted cache starts so, and the cache wipes an
 * area's header before rewriting it, so a crash during a checkpoint leaves one. A space whose both
 * areas are empty has simply not been checkpointed yet: a note, not a problem.
 */
final class StructureCheck {
    private StructureCheck() {
    }

    static void check(List<DeviceScan> scans, Verification verification) {
        for (DeviceScan scan : scans) {
            verification.devices++;
            if (scan.superblock() == null) {
                verification.problem(Problem.SUPERBLOCK, scan.path(), null, scan.superblockProblem());
                continue;
            }
            verification.validSuperblocks++;
            if (scan.geometryProblem() != null) {
                verification.problem(Problem.GEOMETRY, scan.path(), null, scan.geometryProblem());
            }
            for (AreaScan area : scan.areas()) {
                verification.areas++;
                switch (area.state()) {
                    case VALID -> {
                        verification.validAreas++;
                        verification.entries += area.header().entryCount();
                    }
                    case EMPTY -> verification.emptyAreas++;
                    case INVALID -> {
                        verification.invalidAreas++;
                        verification.problem(Problem.AREA, scan.path(), area.name(), area.problem());
                    }
                }
            }
            if (scan.areas().stream().allMatch(area -> area.state() == AreaState.EMPTY)) {
                verification.note(scan.whyNoCheckpoint());
            }
        }
        for (String problem : CacheSetCheck.problems(scans)) {
            verification.problem(Problem.SET, null, null, problem);
        }
    }
}

package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.checkpoint.SpaceLayout;
import io.flashchunk.cache.checkpoint.Superblock;
import java.util.List;
import java.util.UUID;

/** {@code info} for people: a block of aligned lines per device, then a summary of the set. */
final class TextInfoReport {
    private TextInfoReport() {
    }

    static String format(List<DeviceScan> scans) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < scans.size(); i++) {
            DeviceScan scan = scans.get(i);
            out.append("device ").append(i).append(": ").append(scan.path()).append(System.lineSeparator());
            out.append(device(scan).format()).append(System.lineSeparator());
        }
        out.append("summary:").append(System.lineSeparator()).append(summary(scans).format());
        return out.toString();
    }

    private static TextFields device(DeviceScan scan) {
        TextFields fields = new TextFields("  ");
        Superblock superblock = scan.superblock();
        if (superblock == null) {
            fields.add("superblock", scan.superblockState().label() + ": " + scan.superblockProblem());
            fields.add("device-blocks", scan.capacityBlocks());
            return fields;
        }
        SpaceLayout layout = superblock.layout();
        fields.add("superblock", "valid");
        fields.add("instance", superblock.instance());
        fields.add("space", superblock.spaceIndex() + " of " + superblock.spaceCount());
        fields.add("device-blocks", layout.deviceBlocks() + (layout.deviceBlocks() == scan.capacityBlocks() ? ""
                : " (the device has " + scan.capacityBlocks() + ")"));
        fields.add("area-blocks", layout.areaBlocks());
        fields.add("data-start", layout.dataStart());
        fields.add("data-blocks", layout.dataBlocks());
        if (scan.geometryProblem() != null) {
            fields.add("geometry", scan.geometryProblem());
        }
        for (AreaScan area : scan.areas()) {
            fields.add("area " + area.name(), AreaFacts.describe(area));
        }
        AreaScan newest = scan.newest();
        fields.add("recovery-uses", newest == null ? "nothing (no valid checkpoint)"
                : "area " + newest.name() + " (sequence " + newest.header().sequence() + ", "
                        + newest.header().entryCount() + " entries)");
        return fields;
    }

    private static TextFields summary(List<DeviceScan> scans) {
        TextFields fields = new TextFields("  ");
        long valid = scans.stream().filter(scan -> scan.superblock() != null).count();
        fields.add("devices", scans.size() + (valid == scans.size() ? "" : " (" + valid + " with a valid superblock)"));
        UUID instance = CacheSetCheck.commonInstance(scans);
        fields.add("instance", valid == 0 ? "none (no valid superblock)"
                : instance == null ? "the devices disagree" : instance + (valid == scans.size()
                        ? " on every device" : " on every device with a valid superblock"));
        int spaceCount = CacheSetCheck.commonSpaceCount(scans);
        fields.add("space-count", valid == 0 ? "none (no valid superblock)"
                : spaceCount < 0 ? "the devices disagree"
                : spaceCount + (spaceCount == scans.size() ? ", as many as devices given"
                        : ", but " + scans.size() + " device(s) given"));
        List<String> problems = CacheSetCheck.problems(scans);
        if (problems.isEmpty()) {
            fields.add("set-problems", "none");
        }
        for (String problem : problems) {
            fields.add("set-problem", problem);
        }
        return fields;
    }
}

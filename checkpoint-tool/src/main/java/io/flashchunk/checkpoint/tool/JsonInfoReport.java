package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.checkpoint.CheckpointHeader;
import io.flashchunk.cache.checkpoint.Superblock;
import java.util.List;
import java.util.UUID;

/**
 * {@code info} as one JSON object: {@code devices} (superblock, both areas, the area recovery
 * would use) and {@code summary} (whether the devices agree on instance and space count).
 */
final class JsonInfoReport {
    private JsonInfoReport() {
    }

    static String format(List<DeviceScan> scans) {
        return new JsonObject()
                .raw("devices", JsonObject.array(scans.stream().map(JsonInfoReport::device).toList()))
                .raw("summary", summary(scans).toString())
                .toString();
    }

    private static JsonObject device(DeviceScan scan) {
        AreaScan newest = scan.newest();
        return new JsonObject()
                .string("path", scan.path())
                .number("capacityBlocks", scan.capacityBlocks())
                .raw("superblock", superblock(scan).toString())
                .raw("areas", JsonObject.array(scan.areas().stream().map(JsonInfoReport::area).toList()))
                .string("recoveryArea", newest == null ? null : newest.name());
    }

    private static JsonObject superblock(DeviceScan scan) {
        Superblock superblock = scan.superblock();
        JsonObject json = new JsonObject()
                .string("state", scan.superblockState().label())
                .string("problem", scan.superblockProblem());
        if (superblock == null) {
            return json.raw("instance", "null").raw("spaceIndex", "null").raw("spaceCount", "null")
                    .raw("deviceBlocks", "null").raw("areaBlocks", "null").raw("dataStart", "null")
                    .raw("dataBlocks", "null").raw("geometryProblem", "null");
        }
        return json.string("instance", superblock.instance().toString())
                .number("spaceIndex", superblock.spaceIndex())
                .number("spaceCount", superblock.spaceCount())
                .number("deviceBlocks", superblock.layout().deviceBlocks())
                .number("areaBlocks", superblock.layout().areaBlocks())
                .number("dataStart", superblock.layout().dataStart())
                .number("dataBlocks", superblock.layout().dataBlocks())
                .string("geometryProblem", scan.geometryProblem());
    }

    /** An area; the header's facts are null when there is no header to read them from. */
    private static JsonObject area(AreaScan area) {
        CheckpointHeader header = area.header();
        JsonObject json = new JsonObject()
                .string("area", area.name())
                .string("state", area.state().label())
                .bool("valid", area.state() == AreaState.VALID)
                .string("problem", area.problem());
        if (header == null) {
            return json.raw("sequence", "null").raw("time", "null").raw("entries", "null").raw("files", "null")
                    .raw("bodyBytes", "null");
        }
        return json.number("sequence", header.sequence())
                .string("time", AreaFacts.time(header))
                .number("entries", header.entryCount())
                .number("files", header.fileCount())
                .number("bodyBytes", header.bodyBytes());
    }

    private static JsonObject summary(List<DeviceScan> scans) {
        boolean allValid = scans.stream().allMatch(scan -> scan.superblock() != null);
        UUID instance = CacheSetCheck.commonInstance(scans);
        int spaceCount = CacheSetCheck.commonSpaceCount(scans);
        List<String> problems = CacheSetCheck.problems(scans);
        return new JsonObject()
                .number("devices", scans.size())
                .bool("allSuperblocksValid", allValid)
                .bool("instanceAgrees", allValid && instance != null)
                .string("instance", instance == null ? null : instance.toString())
                .bool("spaceCountAgrees", allValid && spaceCount >= 0)
                .raw("spaceCount", spaceCount < 0 ? "null" : Integer.toString(spaceCount))
                .bool("consistent", allValid && problems.isEmpty())
                .raw("problems", JsonObject.array(problems.stream().map(JsonText::string).toList()));
    }
}

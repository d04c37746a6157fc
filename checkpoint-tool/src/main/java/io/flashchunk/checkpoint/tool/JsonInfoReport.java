package io.flashchunk.checkpoint.tool;

import com.fasterxml.jackson.databind.node.ObjectNode;
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
        ObjectNode json = Json.object();
        json.putArray("devices").addAll(scans.stream().map(JsonInfoReport::device).toList());
        json.set("summary", summary(scans));
        return Json.write(json);
    }

    private static ObjectNode device(DeviceScan scan) {
        AreaScan newest = scan.newest();
        ObjectNode json = Json.object()
                .put("path", scan.path())
                .put("capacityBlocks", scan.capacityBlocks());
        json.set("superblock", superblock(scan));
        json.putArray("areas").addAll(scan.areas().stream().map(JsonInfoReport::area).toList());
        return json.put("recoveryArea", newest == null ? null : newest.name());
    }

    private static ObjectNode superblock(DeviceScan scan) {
        Superblock superblock = scan.superblock();
        ObjectNode json = Json.object()
                .put("state", scan.superblockState().label())
                .put("problem", scan.superblockProblem());
        if (superblock == null) {
            return json.putNull("instance").putNull("spaceIndex").putNull("spaceCount").putNull("deviceBlocks")
                    .putNull("areaBlocks").putNull("dataStart").putNull("dataBlocks").putNull("geometryProblem");
        }
        return json.put("instance", superblock.instance().toString())
                .put("spaceIndex", superblock.spaceIndex())
                .put("spaceCount", superblock.spaceCount())
                .put("deviceBlocks", superblock.layout().deviceBlocks())
                .put("areaBlocks", superblock.layout().areaBlocks())
                .put("dataStart", superblock.layout().dataStart())
                .put("dataBlocks", superblock.layout().dataBlocks())
                .put("geometryProblem", scan.geometryProblem());
    }

    /** An area; the header's facts are null when there is no header to read them from. */
    private static ObjectNode area(AreaScan area) {
        CheckpointHeader header = area.header();
        ObjectNode json = Json.object()
                .put("area", area.name())
                .put("state", area.state().label())
                .put("valid", area.state() == AreaState.VALID)
                .put("problem", area.problem());
        if (header == null) {
            return json.putNull("sequence").putNull("time").putNull("entries").putNull("files").putNull("bodyBytes");
        }
        return json.put("sequence", header.sequence())
                .put("time", AreaFacts.time(header))
                .put("entries", header.entryCount())
                .put("files", header.fileCount())
                .put("bodyBytes", header.bodyBytes());
    }

    private static ObjectNode summary(List<DeviceScan> scans) {
        boolean allValid = scans.stream().allMatch(scan -> scan.superblock() != null);
        UUID instance = CacheSetCheck.commonInstance(scans);
        int spaceCount = CacheSetCheck.commonSpaceCount(scans);
        List<String> problems = CacheSetCheck.problems(scans);
        ObjectNode json = Json.object()
                .put("devices", scans.size())
                .put("allSuperblocksValid", allValid)
                .put("instanceAgrees", allValid && instance != null)
                .put("instance", instance == null ? null : instance.toString())
                .put("spaceCountAgrees", allValid && spaceCount >= 0)
                .put("spaceCount", spaceCount < 0 ? null : spaceCount)
                .put("consistent", allValid && problems.isEmpty());
        problems.forEach(json.putArray("problems")::add);
        return json;
    }
}

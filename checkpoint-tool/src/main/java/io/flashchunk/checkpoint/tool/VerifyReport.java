package io.flashchunk.checkpoint.tool;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.stream.Collectors;

/** What verify found, as lines for people or one JSON object. */
final class VerifyReport {
    private VerifyReport() {
    }

    static String text(Verification v) {
        String newline = System.lineSeparator();
        StringBuilder out = new StringBuilder();
        out.append("checked: ").append(v.devices).append(" device(s), ").append(v.validSuperblocks)
                .append(" valid superblock(s), ").append(v.areas).append(" checkpoint area(s) (")
                .append(v.validAreas).append(" valid, ").append(v.emptyAreas).append(" empty, ")
                .append(v.invalidAreas).append(" invalid), ").append(v.entries).append(" entries");
        if (v.dataChecked) {
            out.append(", ").append(v.checkedChunks).append(" chunk(s) read back (").append(v.corruptChunks)
                    .append(" corrupt, ").append(v.staleChunks).append(" stale, ").append(v.unreadableChunks)
                    .append(" unreadable)");
        }
        out.append(newline);
        for (String note : v.notes()) {
            out.append("note: ").append(note).append(newline);
        }
        for (Problem problem : v.problems()) {
            out.append("problem: ").append(problem.message()).append(newline);
        }
        int count = v.problems().size();
        out.append(count == 0 ? "result: OK, no problems found"
                : "result: " + count + (count == 1 ? " problem" : " problems") + " found").append(newline);
        return out.toString();
    }

    static String json(Verification v) {
        ObjectNode json = Json.object().put("ok", v.ok());
        json.putArray("problems").addAll(v.problems().stream().map(Problem::json)
                .collect(Collectors.toUnmodifiableList()));
        v.notes().forEach(json.putArray("notes")::add);
        json.put("devices", v.devices).put("validSuperblocks", v.validSuperblocks);
        json.putObject("areas")
                .put("checked", v.areas)
                .put("valid", v.validAreas)
                .put("empty", v.emptyAreas)
                .put("invalid", v.invalidAreas);
        json.put("entries", v.entries)
                .put("dataChecked", v.dataChecked)
                .put("checkedChunks", v.checkedChunks)
                .put("corruptChunks", v.corruptChunks)
                .put("staleChunks", v.staleChunks)
                .put("unreadableChunks", v.unreadableChunks);
        return Json.write(json);
    }
}

package io.flashchunk.checkpoint.tool;

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
        return new JsonObject()
                .bool("ok", v.ok())
                .raw("problems", JsonObject.array(v.problems().stream().map(Problem::json).toList()))
                .raw("notes", JsonObject.array(v.notes().stream().map(JsonText::string).toList()))
                .number("devices", v.devices)
                .number("validSuperblocks", v.validSuperblocks)
                .raw("areas", new JsonObject()
                        .number("checked", v.areas)
                        .number("valid", v.validAreas)
                        .number("empty", v.emptyAreas)
                        .number("invalid", v.invalidAreas)
                        .toString())
                .number("entries", v.entries)
                .bool("dataChecked", v.dataChecked)
                .number("checkedChunks", v.checkedChunks)
                .number("corruptChunks", v.corruptChunks)
                .number("staleChunks", v.staleChunks)
                .number("unreadableChunks", v.unreadableChunks)
                .toString();
    }
}

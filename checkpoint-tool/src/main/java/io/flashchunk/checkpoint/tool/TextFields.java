package io.flashchunk.checkpoint.tool;

import java.util.ArrayList;
import java.util.List;

/** Indented "key: value" lines with the values of one block lined up, as {@code device} prints them. */
final class TextFields {
    private final String indent;
    private final List<String[]> fields = new ArrayList<>();

    TextFields(String indent) {
        this.indent = indent;
    }

    TextFields add(String key, Object value) {
        fields.add(new String[] {key, String.valueOf(value)});
        return this;
    }

    String format() {
        int width = fields.stream().mapToInt(field -> field[0].length()).max().orElse(0) + 1;
        StringBuilder out = new StringBuilder();
        for (String[] field : fields) {
            out.append(indent).append(String.format("%-" + width + "s %s%n", field[0] + ":", field[1]));
        }
        return out.toString();
    }
}

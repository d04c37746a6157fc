package io.flashchunk.checkpoint.tool;

import java.util.ArrayList;
import java.util.List;

/**
 * Columns lined up under a header row, two spaces apart. Numeric columns are right-aligned; the
 * last column is never padded, so a long file path does not drag spaces behind it.
 */
final class TextTable {
    private final String indent;
    private final String[] headers;
    private final boolean[] rightAligned;
    private final List<String[]> rows = new ArrayList<>();

    /** Headers ending in '>' are right-aligned (the '>' is not printed). */
    TextTable(String indent, String... headers) {
        this.indent = indent;
        this.headers = new String[headers.length];
        this.rightAligned = new boolean[headers.length];
        for (int i = 0; i < headers.length; i++) {
            rightAligned[i] = headers[i].endsWith(">");
            this.headers[i] = rightAligned[i] ? headers[i].substring(0, headers[i].length() - 1) : headers[i];
        }
    }

    TextTable row(Object... cells) {
        if (cells.length != headers.length) {
            throw new IllegalArgumentException(cells.length + " cells for " + headers.length + " columns");
        }
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            row[i] = String.valueOf(cells[i]);
        }
        rows.add(row);
        return this;
    }

    String format() {
        int[] widths = new int[headers.length];
        for (int i = 0; i < headers.length; i++) {
            widths[i] = headers[i].length();
            for (String[] row : rows) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        line(out, headers, widths);
        for (String[] row : rows) {
            line(out, row, widths);
        }
        return out.toString();
    }

    private void line(StringBuilder out, String[] cells, int[] widths) {
        StringBuilder line = new StringBuilder(indent);
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                line.append("  ");
            }
            boolean last = i == cells.length - 1;
            String padding = " ".repeat(widths[i] - cells[i].length());
            if (rightAligned[i]) {
                line.append(padding).append(cells[i]);
            } else {
                line.append(cells[i]).append(last ? "" : padding);
            }
        }
        out.append(line).append(System.lineSeparator());
    }
}

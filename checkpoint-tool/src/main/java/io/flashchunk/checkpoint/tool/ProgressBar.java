package io.flashchunk.checkpoint.tool;

import java.io.PrintWriter;

/**
 * A one-line text progress bar, redrawn in place with a carriage return:
 * {@code [#####     ] 52% 1234/2371 chunks}. Redraws when the percentage moves or every 100 ms,
 * so a fast run does not flood a slow terminal; {@link #finish} draws 100% and ends the line.
 */
final class ProgressBar {
    private static final int WIDTH = 30;
    private static final long REDRAW_NANOS = 100_000_000L;

    private final PrintWriter out;
    private final long total;
    private final String unit;
    private long done;
    private int drawnPercent = -1;
    private long drawnAt;

    ProgressBar(PrintWriter out, long total, String unit) {
        this.out = out;
        this.total = total;
        this.unit = unit;
        draw();
    }

    void advance(long count) {
        done += count;
        if (percent() != drawnPercent || System.nanoTime() - drawnAt >= REDRAW_NANOS) {
            draw();
        }
    }

    void finish() {
        draw();
        out.println();
        out.flush();
    }

    /** The bar as it is drawn now, without the carriage return. */
    String line() {
        int filled = total == 0 ? WIDTH : (int) (WIDTH * Math.min(done, total) / total);
        return "[" + "#".repeat(filled) + " ".repeat(WIDTH - filled) + "] " + percent() + "% " + done + "/" + total
                + " " + unit;
    }

    private int percent() {
        return total == 0 ? 100 : (int) (100 * Math.min(done, total) / total);
    }

    private void draw() {
        out.print("\r" + line());
        out.flush();
        drawnPercent = percent();
        drawnAt = System.nanoTime();
    }
}

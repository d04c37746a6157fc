package io.flashchunk.checkpoint.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class ProgressBarTest {

    @Test
    void drawsInPlaceAndEndsTheLine() {
        StringWriter out = new StringWriter();
        ProgressBar bar = new ProgressBar(new PrintWriter(out), 4, "chunks");
        bar.advance(2);
        assertEquals("[###############               ] 50% 2/4 chunks", bar.line());
        bar.advance(2);
        bar.finish();

        String drawn = out.toString();
        assertTrue(drawn.startsWith("\r[" + " ".repeat(30) + "] 0% 0/4 chunks\r"), drawn);
        assertTrue(drawn.contains("\r[###############               ] 50% 2/4 chunks"), drawn);
        assertTrue(drawn.endsWith("\r[" + "#".repeat(30) + "] 100% 4/4 chunks" + System.lineSeparator()), drawn);
        assertEquals(1, drawn.chars().filter(c -> c == '\n').count(), "one line, redrawn: " + drawn);
    }

    @Test
    void redrawsOnlyWhenThePercentageMovesOrTimePasses() {
        StringWriter out = new StringWriter();
        ProgressBar bar = new ProgressBar(new PrintWriter(out), 1_000_000, "chunks");
        for (int i = 0; i < 1_000_000; i++) {
            bar.advance(1);
        }
        long draws = out.toString().chars().filter(c -> c == '\r').count();
        assertTrue(draws >= 101 && draws < 5_000, draws + " draws");
    }

    @Test
    void nothingToDoIsDone() {
        ProgressBar bar = new ProgressBar(new PrintWriter(new StringWriter()), 0, "chunks");
        assertEquals("[" + "#".repeat(30) + "] 100% 0/0 chunks", bar.line());
    }
}

package io.flashchunk.checkpoint.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TextTableTest {

    @Test
    void alignsNumbersRightAndTextLeftWithoutTrailingSpaces() {
        String table = new TextTable("  ", "N>", "NAME", "PATH")
                .row(7, "a", "/x")
                .row(12345, "longer", "/y/z")
                .format();

        assertEquals(String.join(System.lineSeparator(),
                "      N  NAME    PATH",
                "      7  a       /x",
                "  12345  longer  /y/z", ""), table);
    }
}

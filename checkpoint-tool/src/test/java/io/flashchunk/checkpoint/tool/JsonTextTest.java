package io.flashchunk.checkpoint.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class JsonTextTest {

    @Test
    void quotesPlainText() {
        assertEquals("\"/dev/sdb\"", JsonText.string("/dev/sdb"));
    }

    @Test
    void escapesQuotesBackslashesAndControlCharacters() {
        assertEquals("\"a\\\"b\\\\c\\nd\\te\\u0001f\\u001fg\"", JsonText.string("a\"b\\c\nd\te\u0001f\u001fg"));
    }

    @Test
    void leavesNonAsciiAlone() {
        assertEquals("\"caf\u00e9\"", JsonText.string("caf\u00e9"));
    }

    @Test
    void writesNullAsTheLiteral() {
        assertEquals("null", JsonText.string(null));
    }
}

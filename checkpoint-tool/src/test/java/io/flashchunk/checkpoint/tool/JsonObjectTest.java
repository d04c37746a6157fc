package io.flashchunk.checkpoint.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class JsonObjectTest {

    @Test
    void writesFieldsInOrder() {
        String json = new JsonObject()
                .string("s", "a\"b")
                .string("none", null)
                .number("n", -3)
                .number("d", 1.0 / 3, 4)
                .bool("b", true)
                .raw("list", JsonObject.array(List.of("1", "\"x\"", new JsonObject().number("k", 1))))
                .toString();

        assertEquals("{\"s\":\"a\\\"b\",\"none\":null,\"n\":-3,\"d\":0.3333,\"b\":true,\"list\":[1,\"x\",{\"k\":1}]}",
                json);
    }

    @Test
    void emptyObjectAndArray() {
        assertEquals("{}", new JsonObject().toString());
        assertEquals("[]", JsonObject.array(List.of()));
    }
}

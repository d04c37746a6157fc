package io.flashchunk.checkpoint.tool;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;

/** The JSON reports' one mapper. Its default output is compact: one document per line, as scripts read it. */
final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    static ArrayNode array() {
        return MAPPER.createArrayNode();
    }

    /**
     * {@code value} with exactly {@code decimals} digits after the point, trailing zeros kept (12.5000),
     * or null when it is not finite; {@link ObjectNode#put(String, BigDecimal)} writes null as null.
     */
    static BigDecimal rounded(double value, int decimals) {
        return Double.isFinite(value) ? BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP) : null;
    }

    static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            // Only declared: a tree of plain nodes always serializes.
            throw new IllegalStateException(e);
        }
    }
}

package io.flashchunk.checkpoint.tool;

import java.util.Collection;

/**
 * Builds one JSON object field by field, in order, on one line. Nested objects and arrays go in
 * as already written JSON ({@link #raw}); {@link #array} joins such values.
 */
final class JsonObject {
    private final StringBuilder out = new StringBuilder("{");

    JsonObject string(String name, String value) {
        return raw(name, JsonText.string(value));
    }

    JsonObject number(String name, long value) {
        return raw(name, Long.toString(value));
    }

    /** A finite number with at most {@code decimals} digits after the point. */
    JsonObject number(String name, double value, int decimals) {
        return raw(name, Double.isFinite(value) ? String.format(java.util.Locale.ROOT, "%." + decimals + "f", value)
                : "null");
    }

    JsonObject bool(String name, boolean value) {
        return raw(name, Boolean.toString(value));
    }

    /** A field whose value is already JSON (an object, an array, or null). */
    JsonObject raw(String name, String json) {
        if (out.length() > 1) {
            out.append(',');
        }
        out.append(JsonText.string(name)).append(':').append(json);
        return this;
    }

    @Override
    public String toString() {
        return out + "}";
    }

    /** A JSON array of values that are already JSON. */
    static String array(Collection<?> values) {
        StringBuilder array = new StringBuilder("[");
        for (Object value : values) {
            if (array.length() > 1) {
                array.append(',');
            }
            array.append(value);
        }
        return array.append(']').toString();
    }
}

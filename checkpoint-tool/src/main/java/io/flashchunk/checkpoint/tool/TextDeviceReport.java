package io.flashchunk.checkpoint.tool;

import java.util.LinkedHashMap;
import java.util.Map;

/** A {@link DeviceReport} as "key: value" lines with the values lined up, for people. */
final class TextDeviceReport {
    private TextDeviceReport() {
    }

    static String format(DeviceReport report) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("path", report.path().toString());
        fields.put("kind", report.kind().label());
        fields.put("size-bytes", Long.toString(report.sizeBytes()));
        fields.put("blocks-" + DeviceReport.BLOCK_BYTES, Long.toString(report.blocks()));
        DirectReadCheck direct = report.directRead();
        fields.put("direct-read", direct.opened() ? "yes" : "no (" + direct.error() + ")");
        fields.put("signatures", report.signaturesText());

        int width = fields.keySet().stream().mapToInt(String::length).max().orElse(0) + 1;
        StringBuilder out = new StringBuilder();
        fields.forEach((key, value) -> out.append(String.format("%-" + width + "s %s%n", key + ":", value)));
        return out.toString();
    }
}

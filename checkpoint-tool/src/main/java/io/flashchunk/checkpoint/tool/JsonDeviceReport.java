package io.flashchunk.checkpoint.tool;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.flashchunk.device.DeviceSignatures;

/** A {@link DeviceReport} as one JSON object on one line, for scripts ({@code signatures} null when libblkid could not look). */
final class JsonDeviceReport {
    private JsonDeviceReport() {
    }

    static String format(DeviceReport report) {
        ArrayNode signatures = null;
        if (report.signatures().looked()) {
            signatures = Json.array();
            for (DeviceSignatures.Signature found : report.signatures().found()) {
                signatures.add(Json.object().put("type", found.type()).put("usage", found.usage())
                        .put("offset", found.offset()));
            }
        }
        return Json.write(Json.object()
                .put("path", report.path().toString())
                .put("kind", report.kind().label())
                .put("sizeBytes", report.sizeBytes())
                .put("blockBytes", DeviceReport.BLOCK_BYTES)
                .put("blocks", report.blocks())
                .put("directRead", report.directRead().opened())
                .put("directReadError", report.directRead().error())
                .<ObjectNode>set("signatures", signatures)
                .put("signaturesError", report.signatures().failure()));
    }
}

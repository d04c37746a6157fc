package io.flashchunk.checkpoint.tool;

/** A {@link DeviceReport} as one JSON object on one line, for scripts. */
final class JsonDeviceReport {
    private JsonDeviceReport() {
    }

    static String format(DeviceReport report) {
        return Json.write(Json.object()
                .put("path", report.path().toString())
                .put("kind", report.kind().label())
                .put("sizeBytes", report.sizeBytes())
                .put("blockBytes", DeviceReport.BLOCK_BYTES)
                .put("blocks", report.blocks())
                .put("directRead", report.directRead().opened())
                .put("directReadError", report.directRead().error()));
    }
}

package io.flashchunk.checkpoint.tool;

/** A {@link DeviceReport} as one JSON object on one line, for scripts. */
final class JsonDeviceReport {
    private JsonDeviceReport() {
    }

    static String format(DeviceReport report) {
        return "{"
                + "\"path\":" + JsonText.string(report.path().toString())
                + ",\"kind\":" + JsonText.string(report.kind().label())
                + ",\"sizeBytes\":" + report.sizeBytes()
                + ",\"blockBytes\":" + DeviceReport.BLOCK_BYTES
                + ",\"blocks\":" + report.blocks()
                + ",\"directRead\":" + report.directRead().opened()
                + ",\"directReadError\":" + JsonText.string(report.directRead().error())
                + "}";
    }
}

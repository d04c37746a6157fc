package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.checkpoint.CheckpointHeader;
import java.time.Instant;

/** How both output formats describe a checkpoint header: its sequence, time, counts. */
final class AreaFacts {
    private AreaFacts() {
    }

    /** The header's time as ISO-8601 in UTC, e.g. 2026-11-22T01:47:58.123Z. */
    static String time(CheckpointHeader header) {
        return Instant.ofEpochMilli(header.timestampMillis()).toString();
    }

    /** "sequence 3, 2026-11-22T01:47:58.123Z, 12 entries, 3 files, 1234 body bytes" */
    static String summary(CheckpointHeader header) {
        return "sequence " + header.sequence() + ", " + time(header) + ", " + header.entryCount() + " entries, "
                + header.fileCount() + " files, " + header.bodyBytes() + " body bytes";
    }

    /** One line for an area: valid or empty, or invalid with the reason (and the header's facts when it decoded). */
    static String describe(AreaScan area) {
        return switch (area.state()) {
            case VALID -> "valid: " + summary(area.header());
            case EMPTY -> "empty (never written, or wiped for a checkpoint that did not finish)";
            case INVALID -> "invalid" + (area.header() == null ? "" : " (" + summary(area.header()) + ")") + ": "
                    + area.problem();
        };
    }
}

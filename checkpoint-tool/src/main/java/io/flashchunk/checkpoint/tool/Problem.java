package io.flashchunk.checkpoint.tool;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One thing verify found wrong.
 *
 * @param kind    what was checked: superblock, set (the devices together), area, segment, chunk
 * @param device  the device's path, or null for a problem of the set
 * @param area    "A" or "B" for an area's problem, else null
 * @param message what is wrong, naming the device (and area or chunk)
 */
record Problem(String kind, String device, String area, String message) {
    static final String SUPERBLOCK = "superblock";
    static final String SET = "set";
    static final String AREA = "area";
    static final String CHUNK = "chunk";
    /** A segment's summary that cannot be read, or restored entries no summary names. */
    static final String SEGMENT = "segment";

    ObjectNode json() {
        return Json.object()
                .put("kind", kind)
                .put("device", device)
                .put("area", area)
                .put("message", message);
    }
}

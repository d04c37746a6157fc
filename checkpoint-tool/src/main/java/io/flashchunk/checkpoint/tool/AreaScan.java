package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.checkpoint.CheckpointHeader;
import io.flashchunk.cache.checkpoint.CheckpointImage;

/**
 * One checkpoint area as found on a device.
 *
 * @param area    0 for area A, 1 for area B
 * @param state   valid, empty or invalid
 * @param header  the header when it decodes (also for an invalid area whose body is what is wrong), else null
 * @param image   the checked checkpoint of a valid area, else null; null too for the older of two valid
 *                areas (checked, then let go: only the newest one's entries are used)
 * @param problem why an invalid area is not trusted (the reader's message, naming device and area), else null
 */
record AreaScan(int area, AreaState state, CheckpointHeader header, CheckpointImage image, String problem) {

    /** "A" or "B", as the cache's messages name the areas. */
    String name() {
        return name(area);
    }

    static String name(int area) {
        return area == 0 ? "A" : "B";
    }
}

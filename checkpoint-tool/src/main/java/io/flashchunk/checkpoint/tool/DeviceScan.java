package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.checkpoint.CheckpointImage;
import io.flashchunk.cache.checkpoint.Superblock;
import java.util.List;

/**
 * What is on one device: its superblock and, when that is valid, both checkpoint areas.
 *
 * @param path              the device's path as given
 * @param capacityBlocks    4096-byte blocks the device has
 * @param superblockState   valid, blank or invalid
 * @param superblock        the superblock when valid, else null
 * @param superblockProblem why the superblock is blank or invalid, else null
 * @param geometryProblem   for a valid superblock whose geometry the cache would not lay out, or that does
 *                          not fit the device: what is wrong; else null
 * @param areas             both areas (A, then B) when the superblock is valid, else empty
 */
record DeviceScan(String path, long capacityBlocks, SuperblockState superblockState, Superblock superblock,
                  String superblockProblem, String geometryProblem, List<AreaScan> areas) {

    /** The area the cache's recovery would load: the valid one with the higher sequence (A on a tie), or null. */
    AreaScan newest() {
        AreaScan newest = null;
        for (AreaScan area : areas) {
            if (area.state() == AreaState.VALID
                    && (newest == null || area.header().sequence() > newest.header().sequence())) {
                newest = area;
            }
        }
        return newest;
    }

    /** The checkpoint of {@link #newest()}, or null. */
    CheckpointImage newestImage() {
        AreaScan newest = newest();
        return newest == null ? null : newest.image();
    }

    /**
     * Why this device contributes no entries (for list and stats), or null when it has a checkpoint:
     * a blank or invalid superblock, or no valid checkpoint in either area.
     */
    String whyNoCheckpoint() {
        if (superblockState != SuperblockState.VALID) {
            return superblockProblem;
        }
        if (newest() != null) {
            return null;
        }
        boolean bothEmpty = areas.stream().allMatch(area -> area.state() == AreaState.EMPTY);
        return path + ": " + (bothEmpty ? "no checkpoint written yet (both areas empty)"
                : "no valid checkpoint in either area");
    }
}

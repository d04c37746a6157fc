package io.flashchunk.checkpoint.tool;

import io.flashchunk.cache.checkpoint.RecoveryProblem;
import io.flashchunk.cache.engine.CacheInspection;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.cache.format.CheckpointHeader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code verify} for a cache of the engine: every superblock, the device set, both areas of
 * every space as recovery judges them (header, then body and every entry while it restores them),
 * every durable segment's summary, and that each restored entry is a record its segment's summary
 * names. With data, every entry's record is read back and checked as a hit is (its key, its
 * segment's use, the CRC32C of its header and of its chunk).
 *
 * <p>A record that fails is a problem unless its file is not the one the checkpoint named any more
 * (changed or gone, judged as start judges it: {@link FileIdentity#unchangedOnDisk}): start never
 * restores such a file, so its chunks are never looked up. Those are counted as stale and noted.
 */
final class Verifier {
    private final Verification verification;
    private final Map<FileIdentity, Boolean> unchanged = new HashMap<>();

    Verifier(Verification verification) {
        this.verification = verification;
    }

    /** The checks short of reading chunks; returns the entries found, for {@link #verifyData}. */
    List<CacheInspection.Entry> verifyStructure(CacheInspection cache) {
        verification.devices = cache.devices().size();
        for (int i = 0; i < cache.devices().size(); i++) {
            CacheInspection.Device device = cache.devices().get(i);
            if (device.superblock() == null) {
                verification.problem(Problem.SUPERBLOCK, device.path(), null, device.superblockProblem());
                continue;
            }
            verification.validSuperblocks++;
            for (int area = 0; area < device.areas().size(); area++) {
                verification.areas++;
                CheckpointHeader header = device.areas().get(area).header();
                List<String> problems = cache.areaProblems(i, area);
                if (!problems.isEmpty()) {
                    verification.invalidAreas++;
                    String name = area == 0 ? "A" : "B";
                    problems.forEach(p -> verification.problem(Problem.AREA, device.path(), name, p));
                } else if (header == null) {
                    verification.emptyAreas++;
                } else {
                    verification.validAreas++;
                }
            }
        }
        cache.setProblems().forEach(p -> verification.problem(Problem.SET, null, null, p));
        List<CacheInspection.Entry> entries = new ArrayList<>();
        if (!cache.recovered()) {
            return entries;
        }
        // A power cut while an open segment's summary was written again leaves one that does not check.
        cache.summaryNotes().forEach(note -> verification.note(note));
        for (RecoveryProblem problem : cache.outcome().problems()) {
            if (problem.area() < 0) {
                // not one area's: file ids the spaces dispute, or a space whose two areas hold one sequence
                verification.problem(Problem.SET, null, null, problem.message());
            }
        }
        List<CacheInspection.Unlisted> unreadable = cache.forEachEntry(entries::add);
        for (CacheInspection.Unlisted unlisted : unreadable) {
            if (unlisted.deviceError()) {
                verification.problem(Problem.SEGMENT, null, null, unlisted.message() + ": its entries cannot be named");
            } else {
                // A power cut while an open segment's summary was written again leaves this: not a fault.
                verification.note(unlisted.message() + ": its entries are neither listed nor read back here; the "
                        + "engine checks each record it reads and drops them when it reclaims the segment");
            }
        }
        verification.entries = cache.restoredEntries();
        if (unreadable.isEmpty() && entries.size() != cache.restoredEntries()) {
            verification.problem(Problem.SEGMENT, null, null, (cache.restoredEntries() - entries.size())
                    + " restored index entries point at no record their segment's summary names");
        }
        return entries;
    }

    /** Reads every entry's record back and checks it as a hit would; {@code progress} may be null. */
    void verifyData(CacheInspection cache, List<CacheInspection.Entry> entries, ProgressBar progress) {
        verification.dataChecked = true;
        for (CacheInspection.Entry entry : entries) {
            CacheInspection.RecordCheck check = cache.check(entry);
            switch (check.state()) {
                case READ:
                    verification.checkedChunks++;
                    if (check.length() != entry.length()) {
                        failed(entry, "holds " + check.length() + " bytes; its segment's summary says " + entry.length());
                    }
                    break;
                case ABSENT:
                    failed(entry, check.message());
                    break;
                case MISMATCH:
                    verification.checkedChunks++;
                    failed(entry, check.message());
                    break;
                case UNREADABLE:
                    verification.unreadableChunks++;
                    verification.problem(Problem.CHUNK, entry.device(), null, describe(entry) + ": cannot be read: "
                            + check.message());
                    break;
                default:
                    throw new IllegalStateException("unknown record state " + check.state());
            }
            if (progress != null) {
                progress.advance(1);
            }
        }
    }

    private void failed(CacheInspection.Entry entry, String why) {
        String message = describe(entry) + ": " + why;
        if (entry.file() == null || !unchanged.computeIfAbsent(entry.file(), FileIdentity::unchangedOnDisk)) {
            verification.staleChunks++;
            verification.note(message + "; not a problem: " + entry.path() + " has changed or is gone since the "
                    + "checkpoint, so start never restores it and its chunks are never looked up");
        } else {
            verification.corruptChunks++;
            verification.problem(Problem.CHUNK, entry.device(), null, message);
        }
    }

    private static String describe(CacheInspection.Entry entry) {
        return entry.device() + ": chunk at segment " + entry.segment() + " byte " + entry.offset() + ", "
                + entry.path() + " at " + entry.position() + " (" + entry.length() + " bytes)";
    }
}

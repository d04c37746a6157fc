package io.flashchunk.checkpoint.tool;

import java.util.ArrayList;
import java.util.List;

/** What verify checked and found: counts, problems (which fail it) and notes (which do not). */
final class Verification {
    private final List<Problem> problems = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    long devices;
    long validSuperblocks;
    long areas;
    long validAreas;
    long emptyAreas;
    long invalidAreas;
    /** Entries recovery restored from the valid areas, each checked as recovery checks it. */
    long entries;
    boolean dataChecked;
    /** Records read back and checked as a flash hit is (key, segment use, CRC32C of header and chunk). */
    long checkedChunks;
    long corruptChunks;
    long unreadableChunks;
    /** Records that fail but whose file changed or is gone since: start never restores such a file. */
    long staleChunks;

    void problem(String kind, String device, String area, String message) {
        problems.add(new Problem(kind, device, area, message));
    }

    void note(String message) {
        notes.add(message);
    }

    List<Problem> problems() {
        return problems;
    }

    List<String> notes() {
        return notes;
    }

    boolean ok() {
        return problems.isEmpty();
    }
}

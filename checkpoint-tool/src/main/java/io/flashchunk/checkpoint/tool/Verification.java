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
    /** Entries of all valid areas, each checked by the reader (file, space, range, alignment, overlap). */
    long entries;
    boolean dataChecked;
    /** Chunks read back and checked against their CRC32C. */
    long checkedChunks;
    long corruptChunks;
    long unreadableChunks;
    /** Chunks whose CRC does not match but whose file changed since: recovery would drop them anyway. */
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

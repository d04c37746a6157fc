package io.flashchunk.cache.checkpoint;

import java.util.Objects;

/**
 * A reason recovery did not use something on the devices, typed so that callers (the checkpoint
 * tool) never read meaning out of the text; the message is what the log says.
 */
public final class RecoveryProblem {
    private final int space;
    private final int area;
    private final Kind kind;
    private final String message;

    /**
     * @param space   the address space it concerns, or -1 for the device set as a whole
     * @param area    the checkpoint area (0 = A, 1 = B), or -1 when it is not one area's
     */
    public RecoveryProblem(int space, int area, Kind kind, String message) {
        this.space = space;
        this.area = area;
        this.kind = kind;
        this.message = message;
    }

    public int space() {
        return space;
    }

    public int area() {
        return area;
    }

    public Kind kind() {
        return kind;
    }

    public String message() {
        return message;
    }

    /** What was not used, and why. */
    public enum Kind {
        /** An area's header: not a checkpoint of this cache, space or geometry, or unreadable. */
        AREA_HEADER,
        /** An area's body failed its checks (torn or corrupt): the space tried the other area. */
        AREA_BODY,
        /** Both areas of a space hold one sequence: neither can be trusted over the other. */
        BOTH_AREAS_ONE_SEQUENCE,
        /** The checkpoint was written for an index of another size: its entries are not restored. */
        INDEX_RESIZED,
        /** Two spaces' checkpoints name one file id differently: that file's chunks are not used. */
        FILE_ID_DISPUTED,
        /** A checkpoint delta's body failed its checks: the space tried the delta or full checkpoint before it. */
        DELTA_BODY,
        /** A segment a delta names as changed has no summary that checks: its chunks are not restored. */
        SEGMENT_SUMMARY
    }

    /** Whether this is about area {@code area} of space {@code space}. */
    public boolean isAbout(int space, int area) {
        return this.space == space && this.area == area;
    }

    @Override
    public String toString() {
        return message;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof RecoveryProblem)) {
            return false;
        }
        RecoveryProblem other = (RecoveryProblem) o;
        return space == other.space
                && area == other.area
                && Objects.equals(kind, other.kind)
                && Objects.equals(message, other.message);
    }

    @Override
    public int hashCode() {
        return Objects.hash(space, area, kind, message);
    }

}

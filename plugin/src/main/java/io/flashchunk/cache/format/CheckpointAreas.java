package io.flashchunk.cache.format;

import java.util.Objects;

/**
 * Where one address space keeps its two checkpoint areas (A = 0, B = 1): each a header block at
 * {@code start(area)} followed by room for a body of {@code bodyCapacityBytes}.
 */
public final class CheckpointAreas {
    private final long startA;
    private final long startB;
    private final long bodyCapacityBytes;

    public CheckpointAreas(long startA, long startB, long bodyCapacityBytes) {
        if (startA < 1 || startB < 1 || startA == startB || bodyCapacityBytes < 0) {
            throw new IllegalArgumentException("checkpoint areas at blocks " + startA + " and " + startB
                    + " with " + bodyCapacityBytes + " body bytes");
        }
        this.startA = startA;
        this.startB = startB;
        this.bodyCapacityBytes = bodyCapacityBytes;
    }

    public long startA() {
        return startA;
    }

    public long startB() {
        return startB;
    }

    public long bodyCapacityBytes() {
        return bodyCapacityBytes;
    }

    public long start(int area) {
        return area == 0 ? startA : startB;
    }

    public static String name(int area) {
        return area == 0 ? "A" : "B";
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof CheckpointAreas)) {
            return false;
        }
        CheckpointAreas other = (CheckpointAreas) o;
        return startA == other.startA
                && startB == other.startB
                && bodyCapacityBytes == other.bodyCapacityBytes;
    }

    @Override
    public int hashCode() {
        return Objects.hash(startA, startB, bodyCapacityBytes);
    }

    @Override
    public String toString() {
        return "CheckpointAreas[startA=" + startA + ", startB=" + startB
                + ", bodyCapacityBytes=" + bodyCapacityBytes + "]";
    }
}

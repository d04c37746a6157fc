package io.flashchunk.cache.format;

/**
 * Where one address space keeps its two checkpoint areas (A = 0, B = 1): each a header block at
 * {@code start(area)} followed by room for a body of {@code bodyCapacityBytes}.
 */
public record CheckpointAreas(long startA, long startB, long bodyCapacityBytes) {
    public CheckpointAreas {
        if (startA < 1 || startB < 1 || startA == startB || bodyCapacityBytes < 0) {
            throw new IllegalArgumentException("checkpoint areas at blocks " + startA + " and " + startB
                    + " with " + bodyCapacityBytes + " body bytes");
        }
    }

    public long start(int area) {
        return area == 0 ? startA : startB;
    }

    public static String name(int area) {
        return area == 0 ? "A" : "B";
    }
}

package io.flashchunk.sim;

/**
 * A replayable stream of chunk reads, generated or loaded once so that every design under
 * simulation sees exactly the same reads.
 *
 * @param name what the trace is, for the tables
 * @param keys the chunk read at each step
 * @param sizes the bytes of each read's chunk, or {@code null} when every chunk has {@code chunkBytes}
 * @param chunkBytes the size of every chunk when {@code sizes} is {@code null}; else their mean
 * @param universeBytes the bytes of every chunk the trace may read; cache sizes are fractions of it
 */
public record ChunkTrace(String name, long[] keys, int[] sizes, int chunkBytes, long universeBytes) {

    public int length() {
        return keys.length;
    }

    public int bytes(int step) {
        return sizes == null ? chunkBytes : sizes[step];
    }
}

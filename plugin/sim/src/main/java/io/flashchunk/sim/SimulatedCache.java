package io.flashchunk.sim;

/**
 * A cache design under simulation: which chunks it holds follows from the reads alone. Single-threaded.
 */
public interface SimulatedCache {
    /** One read of a chunk; returns whether it was a hit. A miss may admit the chunk to flash. */
    boolean access(long key, int bytes);

    /** Bytes written to flash for chunks admitted on a miss. */
    long admittedBytes();

    /** Every byte written to flash: admitted chunks and chunks rewritten to keep them (reinsertion). */
    long writtenBytes();
}

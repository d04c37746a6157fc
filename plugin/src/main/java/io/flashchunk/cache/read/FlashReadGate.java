package io.flashchunk.cache.read;

/**
 * What the read path asks before each flash read of a hit and tells after it: the slow-device
 * breakers take a device out of use, and judge it by how its reads go. A refused read is a miss.
 */
public interface FlashReadGate {
    /** Lets every read through and learns nothing. */
    FlashReadGate OPEN = new FlashReadGate() {
        @Override
        public boolean begin(int space) {
            return true;
        }

        @Override
        public void end(int space, long nanos, boolean failed) {
        }
    };

    /** Before a read of {@code space}'s device: whether it may start. After true, {@link #end} follows. */
    boolean begin(int space);

    /** The read took {@code nanos} (on the policy's clock) and failed (an error, or no answer in time) or not. */
    void end(int space, long nanos, boolean failed);

    /**
     * No read was issued after {@link #begin}: the device already has as many reads in flight as it
     * may, and none answers. Judged as a read that failed after {@code nanos}, but it is no read.
     */
    default void gaveUp(int space, long nanos) {
        end(space, nanos, true);
    }

    /** Whether {@code space}'s device is in use now (not taken out of use by a breaker). */
    default boolean inUse(int space) {
        return true;
    }
}

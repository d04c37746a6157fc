package io.flashchunk.testing;

import java.nio.ByteBuffer;

/** What tests read out of buffers. */
public final class Buffers {
    private Buffers() {
    }

    /** The bytes from the buffer's position to its limit; the buffer is left as it was. */
    public static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}

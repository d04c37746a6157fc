package io.flashchunk.buffer;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Direct buffers whose first byte sits on a block boundary, as O_DIRECT and capiblock require. */
public final class AlignedBuffers {
    public static final int ALIGNMENT = 4096;

    private AlignedBuffers() {
    }

    /** A new direct buffer of exactly {@code bytes} capacity, aligned to {@value #ALIGNMENT} bytes. */
    public static ByteBuffer allocate(int bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("buffer size must be positive, got " + bytes);
        }
        if (bytes > Integer.MAX_VALUE - 2 * ALIGNMENT) {
            throw new IllegalArgumentException("buffer size " + bytes + " is too large");
        }
        // alignedSlice trims both ends to the alignment, so over-allocate by a whole block.
        int wholeBlocks = (bytes + ALIGNMENT - 1) & -ALIGNMENT;
        ByteBuffer raw = ByteBuffer.allocateDirect(wholeBlocks + ALIGNMENT);
        return raw.alignedSlice(ALIGNMENT).limit(bytes).slice().order(ByteOrder.BIG_ENDIAN);
    }

    /** Native address of the buffer's current position. */
    public static long address(ByteBuffer direct) {
        return Pointer.nativeValue(Native.getDirectBufferPointer(direct)) + direct.position();
    }
}

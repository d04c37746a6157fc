package io.flashchunk.buffer;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * A pool of aligned direct buffers in power-of-two size classes, from one block up to a maximum.
 * Direct memory is slow to allocate and freed only by the garbage collector, so I/O paths borrow
 * and return buffers instead. Each class keeps at most {@code retainedBytesPerClass} idle bytes;
 * buffers returned beyond that are dropped.
 */
public final class AlignedBufferPool {
    private final int minBytes;
    private final int maxBytes;
    private final ArrayBlockingQueue<ByteBuffer>[] classes;
    private final LongAdder allocations = new LongAdder();
    private final LongAdder reuses = new LongAdder();
    private final LongAdder outstanding = new LongAdder();

    @SuppressWarnings("unchecked")
    public AlignedBufferPool(int maxBufferBytes, long retainedBytesPerClass) {
        if (maxBufferBytes < AlignedBuffers.ALIGNMENT || Integer.bitCount(maxBufferBytes) != 1) {
            throw new IllegalArgumentException("largest pooled buffer must be a power of two of at least "
                    + AlignedBuffers.ALIGNMENT + " bytes, got " + maxBufferBytes);
        }
        if (retainedBytesPerClass < 0) {
            throw new IllegalArgumentException("retained bytes per size class must not be negative, got "
                    + retainedBytesPerClass);
        }
        this.minBytes = AlignedBuffers.ALIGNMENT;
        this.maxBytes = maxBufferBytes;
        int classCount = Integer.numberOfTrailingZeros(maxBytes) - Integer.numberOfTrailingZeros(minBytes) + 1;
        this.classes = new ArrayBlockingQueue[classCount];
        for (int i = 0; i < classCount; i++) {
            long perBuffer = (long) minBytes << i;
            int capacity = (int) Math.max(1, Math.min(Integer.MAX_VALUE, retainedBytesPerClass / perBuffer));
            classes[i] = new ArrayBlockingQueue<>(capacity);
        }
    }

    /**
     * Borrows a buffer for {@code bytes} bytes rounded up to whole blocks: position 0, limit the
     * rounded length, big-endian. Its capacity may be larger (its size class).
     */
    public ByteBuffer acquire(int bytes) {
        if (bytes <= 0 || bytes > maxBytes) {
            throw new IllegalArgumentException("buffer request of " + bytes + " bytes is outside 1.." + maxBytes);
        }
        int rounded = (bytes + AlignedBuffers.ALIGNMENT - 1) & -AlignedBuffers.ALIGNMENT;
        int index = classIndex(rounded);
        ByteBuffer buffer = classes[index].poll();
        if (buffer == null) {
            allocations.increment();
            buffer = AlignedBuffers.allocate(minBytes << index);
        } else {
            reuses.increment();
        }
        outstanding.increment();
        return buffer.clear().limit(rounded);
    }

    /** Returns a buffer obtained from {@link #acquire}; the caller must not use it afterwards. */
    public void release(ByteBuffer buffer) {
        int capacity = buffer.capacity();
        if (Integer.bitCount(capacity) != 1 || capacity < minBytes || capacity > maxBytes) {
            throw new IllegalArgumentException("buffer of capacity " + capacity + " does not belong to this pool");
        }
        outstanding.decrement();
        classes[classIndex(capacity)].offer(buffer);
    }

    /** Buffers acquired and not yet released: 0 once every borrower is done (tests check for leaks with it). */
    public long outstanding() {
        return outstanding.sum();
    }

    /** Buffers created because none was idle. */
    public long allocations() {
        return allocations.sum();
    }

    /** Buffers handed out again from the idle set. */
    public long reuses() {
        return reuses.sum();
    }

    private int classIndex(int roundedBytes) {
        int pow2 = roundedBytes <= minBytes ? minBytes : Integer.highestOneBit(roundedBytes - 1) << 1;
        return Integer.numberOfTrailingZeros(pow2) - Integer.numberOfTrailingZeros(minBytes);
    }
}

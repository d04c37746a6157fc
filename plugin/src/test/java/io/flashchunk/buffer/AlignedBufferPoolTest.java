package io.flashchunk.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class AlignedBufferPoolTest {
    @Test
    void allocatedBuffersAreDirectAlignedAndExactlySized() {
        for (int bytes : new int[] {1, 4096, 5000, 65536, 100_000}) {
            ByteBuffer buffer = AlignedBuffers.allocate(bytes);
            assertTrue(buffer.isDirect());
            assertEquals(bytes, buffer.capacity());
            assertEquals(0, AlignedBuffers.address(buffer) % 4096, "address of a " + bytes + "-byte buffer");
            assertEquals(ByteOrder.BIG_ENDIAN, buffer.order());
        }
        ByteBuffer buffer = AlignedBuffers.allocate(8192).position(4096);
        assertEquals(AlignedBuffers.address(buffer.duplicate().position(0)) + 4096, AlignedBuffers.address(buffer));
    }

    @Test
    void requestsRoundUpToBlocksAndComeFromPowerOfTwoClasses() {
        AlignedBufferPool pool = new AlignedBufferPool(65536, 1 << 20);
        ByteBuffer small = pool.acquire(100);
        assertEquals(4096, small.limit());
        assertEquals(4096, small.capacity());
        ByteBuffer odd = pool.acquire(3 * 4096 + 1);
        assertEquals(4 * 4096, odd.limit());
        assertEquals(4 * 4096, odd.capacity());
        ByteBuffer chunk = pool.acquire(65536);
        assertEquals(65536, chunk.capacity());
        for (ByteBuffer buffer : new ByteBuffer[] {small, odd, chunk}) {
            assertEquals(0, AlignedBuffers.address(buffer) % 4096);
        }
    }

    @Test
    void releasedBuffersAreReusedUpToTheRetainedBound() {
        AlignedBufferPool pool = new AlignedBufferPool(16384, 2 * 8192);
        ByteBuffer first = pool.acquire(8192);
        ByteBuffer second = pool.acquire(8192);
        ByteBuffer third = pool.acquire(8192);
        pool.release(first);
        pool.release(second);
        pool.release(third); // over the bound: dropped
        assertEquals(3, pool.allocations());
        ByteBuffer again = pool.acquire(5000);
        assertSame(first, again);
        assertEquals(8192, again.limit(), "a reused buffer comes back cleared to the new request");
        assertSame(second, pool.acquire(8192));
        assertNotSame(third, pool.acquire(8192));
        assertEquals(2, pool.reuses());
        assertEquals(4, pool.allocations());
    }

    @Test
    void badSizesAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new AlignedBufferPool(5000, 0));
        assertTrue(e.getMessage().contains("5000"), e.getMessage());
        AlignedBufferPool pool = new AlignedBufferPool(8192, 8192);
        e = assertThrows(IllegalArgumentException.class, () -> pool.acquire(8193));
        assertTrue(e.getMessage().contains("8193"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> pool.acquire(0));
        assertTrue(e.getMessage().contains("0 bytes"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> pool.release(ByteBuffer.allocateDirect(12288)));
        assertTrue(e.getMessage().contains("12288"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> AlignedBuffers.allocate(-1));
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
    }
}

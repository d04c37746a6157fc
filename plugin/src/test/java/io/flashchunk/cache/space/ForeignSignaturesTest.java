package io.flashchunk.cache.space;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.MdSuperblock;
import io.flashchunk.testing.MemoryDevice;
import java.nio.ByteBuffer;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The own check start falls back on when libblkid cannot look: a device whose block 0 is blank is
 * blank only if its first and last MiB are zeros. Memory devices have no path libblkid can open, so
 * {@link ForeignSignatures#find} takes that fallback here as it would on a machine without libblkid.
 */
class ForeignSignaturesTest {
    private static final long BLOCKS = (8L << 20) / BlockDevice.BLOCK_SIZE;

    private static StorageDriver driver(MemoryDevice device) {
        return new StorageDriver(device, 2, TimeUnit.SECONDS.toNanos(5));
    }

    private static MemoryDevice withByteAt(long blocks, long offset) throws Exception {
        MemoryDevice device = MemoryDevice.blank("no-such-path", blocks, 8);
        ByteBuffer block = ByteBuffer.allocate(BlockDevice.BLOCK_SIZE);
        block.put((int) (offset % BlockDevice.BLOCK_SIZE), (byte) 1);
        device.write(offset / BlockDevice.BLOCK_SIZE, block.clear()).get();
        return device;
    }

    @Test
    void findsTheFirstByteThatIsNotZeroInEitherEnd() throws Exception {
        assertEquals(-1, ForeignSignatures.firstNonZeroByte(driver(MemoryDevice.blank("zeros", BLOCKS, 8))));
        assertEquals(4096 + 24, ForeignSignatures.firstNonZeroByte(driver(withByteAt(BLOCKS, 4096 + 24))));
        assertEquals((1 << 20) - 1, ForeignSignatures.firstNonZeroByte(driver(withByteAt(BLOCKS, (1 << 20) - 1))));
        long end = BLOCKS * BlockDevice.BLOCK_SIZE;
        assertEquals(end - (1 << 20), ForeignSignatures.firstNonZeroByte(driver(withByteAt(BLOCKS, end - (1 << 20)))));
        assertEquals(end - 1, ForeignSignatures.firstNonZeroByte(driver(withByteAt(BLOCKS, end - 1))));
        // Between the ends it does not look: segments there hold a cache's chunks, never a signature it knows.
        assertEquals(-1, ForeignSignatures.firstNonZeroByte(driver(withByteAt(BLOCKS, 4L << 20))));
        // A device under 2 MiB is read whole.
        assertEquals(5000, ForeignSignatures.firstNonZeroByte(driver(withByteAt(3, 5000))));
    }

    @Test
    void withoutLibblkidAnMdMemberIsFoundByTheOwnCheckAndAZeroDeviceIsBlank() throws Exception {
        MemoryDevice member = MemoryDevice.blank("/nonexistent/md-member", BLOCKS, 8);
        ByteBuffer block = ByteBuffer.allocate(BlockDevice.BLOCK_SIZE);
        block.put(MdSuperblock.block(UUID.randomUUID(), 0, BLOCKS * BlockDevice.BLOCK_SIZE)).clear();
        member.write(MdSuperblock.OFFSET / BlockDevice.BLOCK_SIZE, block).get();
        String found = ForeignSignatures.find(driver(member), true);
        assertTrue(found.startsWith("data at byte 4096 though block 0 is all zeros, found by the own check")
                && found.contains("libblkid could not look: libblkid could not open /nonexistent/md-member"), found);
        assertNull(ForeignSignatures.find(driver(MemoryDevice.blank("/nonexistent/zeros", BLOCKS, 8)), true));
    }
}

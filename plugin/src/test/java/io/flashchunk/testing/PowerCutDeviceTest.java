package io.flashchunk.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.buffer.AlignedBuffers;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The simulator's device leaves exactly the images a power cut could: flushed writes, any others, one torn. */
class PowerCutDeviceTest {
    private static final int BLOCK = 4096;

    private static ByteBuffer filled(int blocks, int value) {
        ByteBuffer buffer = AlignedBuffers.allocate(blocks * BLOCK);
        for (int i = 0; i < buffer.capacity(); i++) {
            buffer.put(i, (byte) value);
        }
        return buffer;
    }

    /** Each block of an image as the value it is filled with (-1 when mixed). */
    private static String blocks(byte[] image, int count) {
        int[] values = new int[count];
        for (int b = 0; b < count; b++) {
            byte first = image[b * BLOCK];
            boolean same = true;
            for (int i = b * BLOCK; i < (b + 1) * BLOCK; i++) {
                same &= image[i] == first;
            }
            values[b] = same ? first : -1;
        }
        return Arrays.toString(values);
    }

    @Test
    void aCutKeepsTheFlushedWritesAndAnySubsetOfTheRestWithOneMaybeTorn() throws Exception {
        try (PowerCutDevice device = PowerCutDevice.blank("sim", 4, 4)) {
            device.write(0, filled(1, 1)).join();   // A, then a flush
            device.flush();
            device.write(1, filled(1, 2)).join();   // B
            device.write(0, filled(2, 3)).join();   // C over blocks 0 and 1
            assertEquals(4, device.cutPoints());
            assertEquals(3, device.writesAt(4), "a SIGKILL keeps all three");
            assertEquals(1, device.durableWritesAt(4), "a power cut keeps A for certain");

            assertEquals("[0, 0, 0, 0]", blocks(device.crashImage(0, new SplittableRandom(1)), 4));
            for (int seed = 0; seed < 50; seed++) {
                assertEquals("[1, 0, 0, 0]", blocks(device.crashImage(2, new SplittableRandom(seed)), 4),
                        "after the flush, before B: A alone");
            }
            Set<String> seen = new HashSet<>();
            for (int seed = 0; seed < 400; seed++) {
                seen.add(blocks(device.crashImage(4, new SplittableRandom(seed)), 4));
            }
            // Neither, B, C (whole), B then C, and C torn after its first block (over B or not).
            Set<String> possible = Set.of("[1, 0, 0, 0]", "[1, 2, 0, 0]", "[3, 3, 0, 0]", "[3, 0, 0, 0]", "[3, 2, 0, 0]");
            assertTrue(possible.containsAll(seen), "impossible images: " + seen);
            assertEquals(possible, seen, "every possible image turns up");
        }
    }

    @Test
    void readsSeeCompletedWritesAndTheImageIsTheDevicesOwn() throws Exception {
        try (PowerCutDevice device = PowerCutDevice.blank("sim", 2, 4)) {
            device.write(1, filled(1, 7)).join();
            ByteBuffer read = AlignedBuffers.allocate(BLOCK);
            device.read(1, read).join();
            assertEquals(7, read.get(BLOCK - 1));
            device.flush();
            byte[] expected = new byte[2 * BLOCK];
            Arrays.fill(expected, BLOCK, 2 * BLOCK, (byte) 7);
            assertArrayEquals(expected, device.crashImage(device.cutPoints(), new SplittableRandom(3)));
        }
    }
}

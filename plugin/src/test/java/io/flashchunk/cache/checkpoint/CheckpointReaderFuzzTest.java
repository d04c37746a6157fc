package io.flashchunk.cache.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import io.flashchunk.testing.Scratch;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Mutates valid checkpoint areas at random for a bounded time (bit flips, overwritten fields,
 * truncation, half of them with checksums recomputed so the damage gets past the checksum gate
 * into the parser). The reader must either refuse with a {@link CheckpointFormatException} or return
 * a checkpoint whose every entry is sound; any other exception, or a bad entry let through, fails.
 */
class CheckpointReaderFuzzTest {
    private static final long DEVICE_BLOCKS = 2048;
    private static final long RUN_NANOS = 4_000_000_000L;

    @Test
    void mutatedCheckpointsAreRefusedOrSound() throws Exception {
        SpaceLayout layout = SpaceLayout.forDevice(DEVICE_BLOCKS);
        Path file = Scratch.file("fuzz", DEVICE_BLOCKS * 4096);
        SplittableRandom random = new SplittableRandom(20261122);
        int accepted = 0;
        int refused = 0;
        int rounds = 0;
        try (BlockDevice device = BlockDevices.open(DeviceSpec.of(file).withEngine(IoEngine.LIBAIO))) {
            long deadline = System.nanoTime() + RUN_NANOS;
            while (System.nanoTime() < deadline) {
                AreaImage image = randomValid(random, layout);
                byte[] bytes = image.encode();
                byte[] mutated = mutate(bytes, random);
                if (random.nextBoolean()) {
                    AreaImage.resealChecksums(mutated);
                }
                // Clear the area first: a shorter image must not borrow bytes of the previous one.
                AreaImage.write(file, layout, 0, new byte[(int) Math.min(layout.areaBlocks(), 16) * 4096]);
                AreaImage.write(file, layout, 0, mutated);
                rounds++;
                try {
                    CheckpointImage read = CheckpointReader.read(device, layout, 0, image.instance, 0, null);
                    assertSound(read, layout);
                    accepted++;
                } catch (CheckpointFormatException e) {
                    refused++;
                } catch (RuntimeException | Error e) {
                    fail("round " + rounds + ": the reader failed with " + e + " instead of refusing the checkpoint", e);
                }
            }
        } finally {
            Files.deleteIfExists(file);
        }
        assertTrue(rounds > 200, "too few rounds to mean anything: " + rounds);
        assertTrue(accepted > 0 && refused > 0, "accepted " + accepted + ", refused " + refused);
    }

    private static AreaImage randomValid(SplittableRandom random, SpaceLayout layout) {
        AreaImage image = new AreaImage();
        int files = 1 + random.nextInt(4);
        for (int f = 0; f < files; f++) {
            image.files.add(new AreaImage.File(f + 1, "/data/ks/table/nb-" + f + "-big-Data.db", random.nextLong(1 << 30),
                    random.nextLong(), random.nextLong(), random.nextLong(), random.nextLong()));
        }
        int entries = random.nextInt(40);
        for (int i = 0; i < entries; i++) {
            // Distinct 16-block slots, so the valid image never overlaps.
            long lba = layout.dataStart() + (long) i * 16;
            image.entries.add(new AreaImage.Entry(1 + random.nextInt(files), i, ChunkLocation.onFlash(0, lba,
                    1 + random.nextInt(65536), random.nextInt(128)), random.nextInt()));
        }
        return image;
    }

    private static byte[] mutate(byte[] bytes, SplittableRandom random) {
        byte[] out = bytes.clone();
        switch (random.nextInt(4)) {
            case 0 -> {
                for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
                    out[random.nextInt(out.length)] ^= (byte) (1 << random.nextInt(8));
                }
            }
            case 1 -> {
                // Overwrite one header field with an extreme or random value.
                int[] offsets = {8, 28, 32, 48, 52, 56, 64};
                int at = offsets[random.nextInt(offsets.length)];
                long value = switch (random.nextInt(4)) {
                    case 0 -> -1L;
                    case 1 -> Long.MAX_VALUE;
                    case 2 -> 0;
                    default -> random.nextLong(1 << 20);
                };
                ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
                if (at == 56 || at == 64 || at == 32) {
                    b.putLong(at, value);
                } else {
                    b.putInt(at, (int) value);
                }
            }
            case 2 -> {
                return Arrays.copyOf(out, 4096 + random.nextInt(Math.max(1, out.length - 4096)));
            }
            default -> {
                // Damage the body: an entry's location or file id, or a path length.
                if (out.length > 4096) {
                    int at = 4096 + random.nextInt(out.length - 4096);
                    ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).putShort(Math.min(at, out.length - 2),
                            (short) random.nextInt());
                }
            }
        }
        return out;
    }

    /** What the reader promises about anything it accepts. */
    private static void assertSound(CheckpointImage image, SpaceLayout layout) {
        BitSet used = new BitSet();
        for (int i = 0; i < image.entryCount(); i++) {
            long location = image.location(i);
            assertTrue(image.files().containsKey(image.fileId(i)), "entry " + i + " names an unknown file");
            assertTrue(ChunkLocation.isOnFlash(location) && ChunkLocation.space(location) == 0);
            long lba = ChunkLocation.lba(location);
            int blocks = 1 << ChunkLocation.order(ChunkLocation.length(location));
            assertTrue(lba >= layout.dataStart() && lba + blocks <= layout.dataStart() + layout.dataBlocks());
            int from = (int) (lba - layout.dataStart());
            assertEquals(-1, used.get(from, from + blocks).nextSetBit(0), "entry " + i + " overlaps");
            used.set(from, from + blocks);
        }
    }
}

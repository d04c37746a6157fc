package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.space.CacheRecoveryException;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import io.flashchunk.testing.Commands;
import io.flashchunk.testing.LoopDevice;
import io.flashchunk.testing.MdSuperblock;
import io.flashchunk.testing.Scratch;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A device whose block 0 is all zeros is not blank when something keeps its superblock further in:
 * an MD 1.2 array member and bcache at 4 KiB, btrfs at 64 KiB. Such a device is never written unless
 * the operator says {@code format: force}, strict mode or not; once forced, it is the cache's for good.
 */
class SignaturesBeyondBlockZeroTest {
    private static final long DEVICE_BYTES = 64L << 20;
    /** mkfs.btrfs refuses anything smaller. */
    private static final long BTRFS_BYTES = 128L << 20;
    private static final int CHECKED_BYTES = 1 << 20;

    private static CacheConfig config(boolean strict, DeviceSpec device) {
        return CacheConfig.builder().strict(strict).device(device.withEngine(IoEngine.THREADPOOL).withQueueDepth(8)).build();
    }

    private static byte[] head(Path device) throws IOException {
        byte[] head = new byte[CHECKED_BYTES];
        try (RandomAccessFile raf = new RandomAccessFile(device.toFile(), "r")) {
            raf.readFully(head);
        }
        return head;
    }

    private static void writeMdMember(Path device) throws IOException, InterruptedException {
        try (FileChannel channel = FileChannel.open(device, StandardOpenOption.WRITE)) {
            channel.write(MdSuperblock.block(UUID.randomUUID(), 0, channel.size()), MdSuperblock.OFFSET);
            channel.force(true);
        }
        // mdadm itself takes it for an array member (this kernel has no md driver to create one).
        String examined = Commands.run("mdadm", "--examine", device.toString());
        assertTrue(examined.contains("Raid Level : raid1") && examined.contains("Checksum") && examined.contains("correct"),
                examined);
    }

    /** Refused in both modes, with the path and what was found named, and not one byte written. */
    private static void assertRefused(Path device, String... named) throws IOException {
        byte[] before = head(device);
        for (boolean strict : new boolean[] {false, true}) {
            CacheRecoveryException e = assertThrows(CacheRecoveryException.class,
                    () -> FlashCache.open(config(strict, DeviceSpec.of(device))), "strict " + strict);
            assertTrue(e.getMessage().contains("will not format " + device + " holds ")
                    && e.getMessage().contains("format: force"), e.getMessage());
            for (String name : named) {
                assertTrue(e.getMessage().contains(name), "'" + name + "' missing in: " + e.getMessage());
            }
            assertArrayEquals(before, head(device), device + " was written to (strict " + strict + ")");
        }
    }

    /** Forced, it is formatted; after that it starts without force, strict or not. */
    private static void assertForcedThenOurs(Path device) throws Exception {
        try (FlashCache cache = FlashCache.open(config(false, DeviceSpec.of(device).withForceFormat(true)))) {
            assertEquals(0, cache.entries());
        }
        FlashCache.open(config(true, DeviceSpec.of(device))).close();
    }

    @Test
    void aStoppedMdArrayMemberWithBlockZeroBlankIsNeverFormattedUnlessForced() throws Exception {
        try (LoopDevice loop = LoopDevice.attach(DEVICE_BYTES)) {
            writeMdMember(loop.path());
            assertRefused(loop.path(), "linux_raid_member (RAID member, magic at byte 4096), found by libblkid");
            assertForcedThenOurs(loop.path());
        }
    }

    @Test
    void aBcacheDeviceIsNeverFormattedUnlessForced() throws Exception {
        Path device = Scratch.file("bcache", DEVICE_BYTES);
        try {
            Commands.run("make-bcache", "-C", device.toString());
            assertRefused(device, "bcache (other, magic at byte 4", "found by libblkid");
            assertForcedThenOurs(device);
        } finally {
            Files.deleteIfExists(device);
        }
    }

    @Test
    void aBtrfsFileSystemIsNeverFormattedUnlessForcedAndIsClearedWhenItIs() throws Exception {
        Path device = Scratch.file("btrfs", BTRFS_BYTES);
        try {
            Commands.run("mkfs.btrfs", "-q", "-f", device.toString());
            assertRefused(device, "btrfs (file system, magic at byte 65600), found by libblkid");
            // Its superblock at 64 KiB lies in a checkpoint area's body, which a format does not write:
            // unless the format clears it, the next start would take the cache's own device for btrfs.
            assertForcedThenOurs(device);
        } finally {
            Files.deleteIfExists(device);
        }
    }

    @Test
    void aCacheDeviceSomeoneMadeAnArrayMemberOfIsRefusedUnlessForced() throws Exception {
        try (LoopDevice loop = LoopDevice.attach(DEVICE_BYTES)) {
            FlashCache.open(config(false, DeviceSpec.of(loop.path()))).close();
            writeMdMember(loop.path());
            assertRefused(loop.path(), loop.path() + " holds a flash cache superblock but also linux_raid_member");
            assertForcedThenOurs(loop.path());
        }
    }

    /**
     * The cache's own data sits where probers look, and a format leaves alone what lies past the part
     * of the device the cache uses: on a device holding the cache's superblock, a signature out there
     * (here an MD 1.0 superblock at the device's end) does not refuse the cache, which would then be
     * off, or formatted at every start with force.
     */
    @Test
    void aSignaturePastThePartTheCacheUsesDoesNotRefuseTheCache() throws Exception {
        try (LoopDevice loop = LoopDevice.attach(DEVICE_BYTES)) {
            DeviceSpec half = DeviceSpec.of(loop.path()).withCapacityBytes(DEVICE_BYTES / 2);
            FlashCache.open(config(false, half)).close();
            try (FileChannel channel = FileChannel.open(loop.path(), StandardOpenOption.WRITE)) {
                channel.write(MdSuperblock.endBlock(UUID.randomUUID(), 0, DEVICE_BYTES),
                        MdSuperblock.endOffset(DEVICE_BYTES));
                channel.force(true);
            }
            assertTrue(Commands.run("blkid", "-p", loop.path().toString()).contains("linux_raid_member"),
                    "libblkid sees the MD superblock at the end");
            try (FlashCache cache = FlashCache.open(config(true, half))) {
                assertEquals(0, cache.entries(), "started as the cache, strict, neither formatted nor refused");
            }
        }
    }

    @Test
    void anAllZeroBlockDeviceIsBlankAndFormatted() throws Exception {
        try (LoopDevice loop = LoopDevice.attach(DEVICE_BYTES)) {
            try (FlashCache cache = FlashCache.open(config(true, DeviceSpec.of(loop.path())))) {
                assertEquals(0, cache.entries());
            }
            FlashCache.open(config(true, DeviceSpec.of(loop.path()))).close();
        }
    }
}

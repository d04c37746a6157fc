package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.space.CacheRecoveryException;
import io.flashchunk.device.DeviceOpenException;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import io.flashchunk.testing.Commands;
import io.flashchunk.testing.LoopDevice;
import io.flashchunk.testing.Scratch;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The cache writes only to devices that are its own: never a device that holds something else
 * (unless the operator says {@code format: force}), never a mounted one, never one another cache
 * uses, never one device as two.
 */
class DeviceOwnershipTest {
    private static final long DEVICE_BYTES = 32L << 20;

    private static CacheConfig config(DeviceSpec... devices) {
        CacheConfig.Builder builder = CacheConfig.builder();
        for (DeviceSpec device : devices) {
            builder.device(device.withEngine(IoEngine.LIBAIO).withQueueDepth(8));
        }
        return builder.build();
    }

    private static byte[] head(Path file, int bytes) throws IOException {
        byte[] head = new byte[bytes];
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            raf.readFully(head);
        }
        return head;
    }

    @Test
    void aDeviceHoldingAFileSystemIsNeverFormattedUnlessForced() throws Exception {
        Path device = Scratch.file("ext4", DEVICE_BYTES);
        try {
            Commands.run("mkfs.ext4", "-q", "-F", device.toString());
            byte[] before = head(device, 1 << 20);
            for (boolean strict : new boolean[] {false, true}) {
                CacheConfig config = CacheConfig.builder().strict(strict)
                        .device(DeviceSpec.of(device).withEngine(IoEngine.LIBAIO)).build();
                CacheRecoveryException e = assertThrows(CacheRecoveryException.class, () -> FlashCache.open(config));
                assertTrue(e.getMessage().contains(device + " holds an ext2/3/4 file system")
                        && e.getMessage().contains("format: force"), e.getMessage());
                assertArrayEquals(before, head(device, 1 << 20), "the file system was written to (strict " + strict + ")");
            }
            try (FlashCache cache = FlashCache.open(config(DeviceSpec.of(device).withForceFormat(true)))) {
                assertEquals(0, cache.entries());
            }
            // Now it is ours: no force needed to start again.
            FlashCache.open(config(DeviceSpec.of(device))).close();
        } finally {
            Files.deleteIfExists(device);
        }
    }

    @Test
    void twoCachesCannotShareADevice() throws Exception {
        Path device = Scratch.file("shared", DEVICE_BYTES);
        try (FlashCache first = FlashCache.open(config(DeviceSpec.of(device)))) {
            DeviceOpenException e = assertThrows(DeviceOpenException.class,
                    () -> FlashCache.open(config(DeviceSpec.of(device))));
            assertTrue(e.getMessage().contains(device + " is already in use by a flash cache"), e.getMessage());
            assertEquals(0, first.stats().writeErrors());
        } finally {
            Files.deleteIfExists(device);
        }
        // Released with the cache: it opens again.
        Path again = Scratch.file("again", DEVICE_BYTES);
        try {
            FlashCache.open(config(DeviceSpec.of(again))).close();
            FlashCache.open(config(DeviceSpec.of(again))).close();
        } finally {
            Files.deleteIfExists(again);
        }
    }

    @Test
    void oneDeviceListedTwiceThroughALinkIsRefusedByName() throws Exception {
        Path device = Scratch.file("twice", DEVICE_BYTES);
        Path link = device.resolveSibling(device.getFileName() + ".link");
        try {
            Files.createSymbolicLink(link, device);
            DeviceOpenException e = assertThrows(DeviceOpenException.class,
                    () -> FlashCache.open(config(DeviceSpec.of(device), DeviceSpec.of(link))));
            assertEquals("device " + link + " is the same device as " + device
                    + ", listed before it: each device may hold one address space only", e.getMessage());
        } finally {
            Files.deleteIfExists(link);
            Files.deleteIfExists(device);
        }
    }

    @Test
    void aMountedBlockDeviceIsRefusedAndLeftAlone() throws Exception {
        try (LoopDevice loop = LoopDevice.attach(DEVICE_BYTES)) {
            Commands.run("mkfs.ext4", "-q", "-F", loop.path().toString());
            Path mountPoint = Files.createTempDirectory(Scratch.dir(), "mnt");
            Commands.run("mount", loop.path().toString(), mountPoint.toString());
            try {
                byte[] before = head(loop.path(), 1 << 20);
                DeviceOpenException e = assertThrows(DeviceOpenException.class,
                        () -> FlashCache.open(config(DeviceSpec.of(loop.path()).withForceFormat(true))));
                assertTrue(e.getMessage().contains(loop.path() + " is in use: it is mounted"), e.getMessage());
                assertArrayEquals(before, head(loop.path(), 1 << 20));
            } finally {
                Commands.run("umount", mountPoint.toString());
                Files.delete(mountPoint);
            }
        }
    }
}

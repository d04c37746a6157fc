package io.flashchunk.cache.space;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.DeviceSignatures.Probe;
import io.flashchunk.device.DeviceSignatures.Signature;
import io.flashchunk.device.DeviceSignatures;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds what a device holds besides a flash cache, so that start never takes a RAID member, a file
 * system or a partitioned disk for a blank device or for its own: an all-zero block 0 is not enough,
 * since MD 1.2 and bcache keep their superblock at 4 KiB, btrfs at 64 KiB, ZFS and MD 0.90/1.0 at
 * the end.
 *
 * <p>Contract of {@link #find}: null when libblkid finds no signature; otherwise what was found and
 * how, for the refusal. On a device that holds a flash cache superblock, only signatures whose
 * checksum holds and whose magic lies within the part the cache uses count: the cache's own data sits
 * where probers look (the device's end, its first MiB), and a format leaves what lies beyond that
 * part alone, so anything else would refuse a healthy cache, or have it formatted at every start. When libblkid cannot look (not installed, an error, no answer), a device
 * whose block 0 is blank counts as blank only if its first and last MiB (as far as the cache uses
 * it) read as all zeros ({@link #firstNonZeroByte}); a device holding a flash cache superblock is
 * taken as the cache it says, with a warning, since its data is no longer zeros to check. Reads go
 * through the driver, bounded by its timeout; nothing is ever written.
 */
final class ForeignSignatures {
    private static final Logger LOG = LoggerFactory.getLogger(ForeignSignatures.class);
    /** The own check looks at this much at each end. */
    static final int END_BYTES = 1 << 20;
    private static final int PIECE_BYTES = 256 << 10;
    /** Rounds of clearing before a format: each clears what one probe found; more means it does not go away. */
    private static final int CLEAR_ROUNDS = 16;

    private ForeignSignatures() {
    }

    /**
     * @param blank whether block 0 is all zeros (else it holds a flash cache superblock or something else)
     * @return null when nothing besides a flash cache was found, else e.g. "linux_raid_member (RAID
     *     member, magic at byte 4096), found by libblkid"
     */
    static String find(StorageDriver driver, boolean blank) throws IOException {
        Probe probe = DeviceSignatures.probe(driver.path(), driver.timeoutNanos(), blank);
        if (probe.looked()) {
            long bytes = driver.capacityBlocks() * BlockDevice.BLOCK_SIZE;
            List<Signature> found = blank ? probe.found()
                    : probe.found().stream().filter(s -> s.offset() >= 0 && s.offset() < bytes)
                            .collect(Collectors.toUnmodifiableList());
            return found.isEmpty() ? null : describe(found) + ", found by libblkid";
        }
        if (!blank) {
            LOG.warn("flash cache: {}: cannot look for other signatures ({}); taken as the flash cache its "
                    + "superblock names", driver.path(), probe.failure());
            return null;
        }
        long nonZero = firstNonZeroByte(driver);
        if (nonZero >= 0) {
            return "data at byte " + nonZero + " though block 0 is all zeros, found by the own check that a blank "
                    + "device's first and last MiB are zeros (libblkid could not look: " + probe.failure() + ")";
        }
        LOG.info("flash cache: {} is blank: its first and last MiB are all zeros (own check; libblkid could not "
                + "look: {})", driver.path(), probe.failure());
        return null;
    }

    /** The first byte that is not zero in the device's first and last MiB (its capacity's), or -1. */
    static long firstNonZeroByte(StorageDriver driver) throws IOException {
        long bytes = driver.capacityBlocks() * BlockDevice.BLOCK_SIZE;
        long head = firstNonZeroByte(driver, 0, Math.min(END_BYTES, bytes));
        if (head >= 0) {
            return head;
        }
        long tailStart = Math.max(Math.min(END_BYTES, bytes), bytes - END_BYTES);
        return firstNonZeroByte(driver, tailStart, bytes);
    }

    private static long firstNonZeroByte(StorageDriver driver, long from, long to) throws IOException {
        for (long at = from; at < to; at += PIECE_BYTES) {
            // A new buffer each time: one whose read timed out still belongs to the device.
            ByteBuffer piece = AlignedBuffers.allocate((int) Math.min(PIECE_BYTES, to - at));
            driver.await(driver.read(at / BlockDevice.BLOCK_SIZE, piece), "reading to check the device is blank");
            for (int i = 0; i < piece.limit(); i++) {
                if (piece.get(i) != 0) {
                    return at + i;
                }
            }
        }
        return -1;
    }

    /**
     * Before a format: zeroes the block holding each signature libblkid finds within the cache's
     * capacity, until it finds none there, so that the formatted device is its own next start (a
     * btrfs superblock at 64 KiB would outlive our superblock and areas). Does nothing when
     * libblkid cannot look; signatures beyond the capacity are left alone, with a warning.
     */
    static void clear(StorageDriver driver) throws IOException {
        long bytes = driver.capacityBlocks() * BlockDevice.BLOCK_SIZE;
        for (int round = 0; round < CLEAR_ROUNDS; round++) {
            Probe probe = DeviceSignatures.probe(driver.path(), driver.timeoutNanos());
            if (!probe.looked() || probe.found().isEmpty()) {
                return;
            }
            List<Signature> within = probe.found().stream().filter(s -> s.offset() >= 0 && s.offset() < bytes)
                    .collect(Collectors.toUnmodifiableList());
            if (within.isEmpty()) {
                LOG.warn("flash cache: {} still holds {} outside the part the cache uses (or at no known offset); it is left as it is",
                        driver.path(), describe(probe.found()));
                return;
            }
            for (Signature signature : within) {
                // A magic is at most a few bytes: clear the block it starts in and the one it may run into.
                long first = signature.offset() / BlockDevice.BLOCK_SIZE;
                long last = Math.min((signature.offset() + 15) / BlockDevice.BLOCK_SIZE, driver.capacityBlocks() - 1);
                for (long lba = first; lba <= last; lba++) {
                    driver.writeAndWait(lba, AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE),
                            "clearing the signature of " + signature.type());
                }
                LOG.info("flash cache: cleared {} on {} before formatting it", signature, driver.path());
            }
        }
        LOG.warn("flash cache: {}: signatures were still found after {} rounds of clearing", driver.path(), CLEAR_ROUNDS);
    }

    /** E.g. "linux_raid_member (RAID member, magic at byte 4096) and ext4 (file system, magic at byte 1080)". */
    static String describe(List<Signature> found) {
        return found.stream().map(s -> s.type() + " (" + usage(s.usage())
                + (s.offset() < 0 ? "" : ", magic at byte " + s.offset()) + ")").collect(Collectors.joining(" and "));
    }

    private static String usage(String blkidUsage) {
        switch (blkidUsage) {
            case "filesystem":
                return "file system";
            case "raid":
                return "RAID member";
            case "crypto":
                return "encrypted volume";
            default:
                return blkidUsage;
        }
    }
}

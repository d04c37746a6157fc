package io.flashchunk.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.device.DeviceSignatures.Probe;
import io.flashchunk.device.DeviceSignatures.Signature;
import io.flashchunk.testing.Commands;
import io.flashchunk.testing.LoopDevice;
import io.flashchunk.testing.MdSuperblock;
import io.flashchunk.testing.Scratch;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** libblkid's probe against signatures real tools made, on files and on a loop device. */
class DeviceSignaturesTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(30);

    private static Probe probe(Path path) {
        return DeviceSignatures.probe(path.toString(), TIMEOUT);
    }

    @Test
    void anAllZeroFileHoldsNoSignature() throws Exception {
        Path file = Scratch.file("zeros", 64L << 20);
        try {
            assertEquals(new Probe(List.of(), null), probe(file));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void findsAnMdMemberOnALoopDeviceWhoseBlockZeroIsBlank() throws Exception {
        try (LoopDevice loop = LoopDevice.attach(64L << 20)) {
            try (FileChannel channel = FileChannel.open(loop.path(), StandardOpenOption.WRITE)) {
                channel.write(MdSuperblock.block(UUID.randomUUID(), 1, channel.size()), MdSuperblock.OFFSET);
            }
            assertEquals(new Probe(List.of(new Signature("linux_raid_member", "raid", 4096)), null), probe(loop.path()));
        }
    }

    @Test
    void findsBtrfsBcacheExt4AndAPartitionTableMadeByTheirTools() throws Exception {
        Path btrfs = Scratch.file("btrfs", 128L << 20);
        Path bcache = Scratch.file("bcache", 64L << 20);
        Path ext4 = Scratch.file("ext4", 64L << 20);
        try {
            Commands.run("mkfs.btrfs", "-q", "-f", btrfs.toString());
            Commands.run("make-bcache", "-C", bcache.toString());
            Commands.run("mkfs.ext4", "-q", "-F", ext4.toString());
            assertEquals(List.of(new Signature("btrfs", "filesystem", 65600)), probe(btrfs).found());
            assertEquals(List.of(new Signature("bcache", "other", 4120)), probe(bcache).found());
            assertEquals(List.of(new Signature("ext4", "filesystem", 1080)), probe(ext4).found());
            // A partition table: the probe reports it next to the file system it does not replace.
            Commands.run("sh", "-c", "printf 'label: dos\\n,10M\\n' | sfdisk -q --wipe never " + ext4);
            assertEquals(List.of(new Signature("ext4", "filesystem", 1080), new Signature("dos", "partition table", 510)),
                    probe(ext4).found());
        } finally {
            Files.deleteIfExists(btrfs);
            Files.deleteIfExists(bcache);
            Files.deleteIfExists(ext4);
        }
    }

    @Test
    void aPathThatDoesNotOpenIsAProbeThatCouldNotLookNotAnError() throws Exception {
        Probe probe = DeviceSignatures.probe(Scratch.dir().resolve("no-such-device").toString(), TIMEOUT);
        assertFalse(probe.looked());
        assertTrue(probe.failure().contains("could not open") && probe.failure().contains("no-such-device"),
                probe.failure());
    }

    @Test
    void leavesNoDescriptorOpen() throws Exception {
        Path file = Scratch.file("fds", 64L << 20);
        try {
            Commands.run("make-bcache", "-C", file.toString());
            for (int i = 0; i < 200; i++) {
                assertEquals(1, probe(file).found().size());
            }
            // Only this file's: other tests' threads open and close descriptors of their own meanwhile.
            assertEquals(0, openDescriptors(file), "descriptors of the probed file left open");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** Descriptors of this process open on {@code file}. */
    private static long openDescriptors(Path file) throws Exception {
        Path real = file.toRealPath();
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).equals(real);
                } catch (java.io.IOException e) {
                    return false; // closed since it was listed
                }
            }).count();
        }
    }
}

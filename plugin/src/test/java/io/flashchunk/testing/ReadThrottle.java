package io.flashchunk.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A real slow device for one thread: a cgroup v1 blkio group whose read-IOPS cap applies to one
 * block device, with the calling thread moved into it (blk-throttle holds the reads it submits
 * until the cap lets them through). Reads of other threads and devices go at full speed. Closing
 * moves the thread back and removes the group. Needs root and the blkio controller, as CI's
 * machines and the capped-storage benchmark have.
 */
public final class ReadThrottle implements AutoCloseable {
    private static final Path BLKIO = Path.of("/sys/fs/cgroup/blkio");

    private final Path group;
    private final String thread;

    private ReadThrottle(Path group, String thread) {
        this.group = group;
        this.thread = thread;
    }

    /** Caps {@code device}'s reads at {@code iops} for the calling thread, until closed by the same thread. */
    public static ReadThrottle onThisThread(Path device, int iops) throws IOException, InterruptedException {
        if (!Files.isDirectory(BLKIO)) {
            throw new IOException("no cgroup v1 blkio controller at " + BLKIO);
        }
        String majorMinor = Commands.run("lsblk", "-dno", "MAJ:MIN", device.toString()).trim();
        // /proc/thread-self links to <pid>/task/<tid>
        String thread = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
        Path group = BLKIO.resolve("flashchunk-test-" + ProcessHandle.current().pid() + "-" + thread);
        Files.createDirectory(group);
        try {
            write(group.resolve("blkio.throttle.read_iops_device"), majorMinor + " " + iops);
            write(group.resolve("tasks"), thread);
        } catch (IOException e) {
            Files.delete(group);
            throw e;
        }
        return new ReadThrottle(group, thread);
    }

    private static void write(Path file, String value) throws IOException {
        Files.write(file, value.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Moves the thread back, and with it any io_uring worker its reads started (a worker joins the
     * group of the thread that made it), then removes the group once the kernel has let go of it.
     */
    @Override
    public void close() throws Exception {
        write(BLKIO.resolve("tasks"), thread);
        Waits.until("the blkio group " + group + " to empty and go", Duration.ofSeconds(30), Duration.ofMillis(20), () -> {
            for (String task : Files.readAllLines(group.resolve("tasks"))) {
                try {
                    write(BLKIO.resolve("tasks"), task.trim());
                } catch (IOException e) {
                    // gone already, or a kernel thread that stays until it exits
                }
            }
            try {
                Files.delete(group);
                return true;
            } catch (IOException e) {
                return false;
            }
        });
    }
}

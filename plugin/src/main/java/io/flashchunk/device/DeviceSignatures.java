package io.flashchunk.device;

import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Asks libblkid which known signatures a device holds: file systems, RAID members (MD, at 4 KiB or at
 * the end), bcache, LVM, LUKS, swap, ZFS labels, partition tables, whatever util-linux knows. A block
 * that is all zeros says nothing of the rest of the device: MD 1.2 and bcache keep their superblock at
 * 4 KiB, btrfs at 64 KiB, ZFS at the end too.
 *
 * <p>Contract: {@link #probe} opens the path read-only (a descriptor of its own, closed before it
 * returns, as is the probe's native memory), works on regular files and block devices, and never
 * throws: a library that does not load, a path that does not open, a probe that errs or does not
 * answer within the timeout all give a {@link Probe} that says it could not look and why, for the
 * caller to fall back on a check of its own. It reports a signature whose checksum is bad only when
 * asked to ({@code badChecksums}): what was a RAID member or a file system may be damaged, while a
 * device full of the cache's own data matches some prober's short magic by chance far more often
 * when checksums are not required.
 */
public final class DeviceSignatures {
    /** More results than any real device holds: a probe that keeps answering is taken as broken. */
    private static final int MAX_RESULTS = 64;

    /** One signature: its type as blkid names it (linux_raid_member, btrfs, gpt...), its usage, where its magic is. */
    public static final class Signature {
        private final String type;
        private final String usage;
        private final long offset;

        public Signature(String type, String usage, long offset) {
            this.type = type;
            this.usage = usage;
            this.offset = offset;
        }

        public String type() {
            return type;
        }

        public String usage() {
            return usage;
        }

        public long offset() {
            return offset;
        }

        /** E.g. "linux_raid_member (raid, at byte 4096)". */
        @Override
        public String toString() {
            return type + " (" + usage + (offset < 0 ? "" : ", at byte " + offset) + ")";
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof Signature)) {
                return false;
            }
            Signature other = (Signature) o;
            return Objects.equals(type, other.type)
                    && Objects.equals(usage, other.usage)
                    && offset == other.offset;
        }

        @Override
        public int hashCode() {
            return Objects.hash(type, usage, offset);
        }

    }

    /**
     * What a probe saw: the signatures found (empty: none), or, when it could not look, why
     * ({@code failure} non-null and {@code found} empty).
     */
    public static final class Probe {
        private final List<Signature> found;
        private final String failure;

        public Probe(List<Signature> found, String failure) {
            this.found = found;
            this.failure = failure;
        }

        public List<Signature> found() {
            return found;
        }

        public String failure() {
            return failure;
        }

        public boolean looked() {
            return failure == null;
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof Probe)) {
                return false;
            }
            Probe other = (Probe) o;
            return Objects.equals(found, other.found)
                    && Objects.equals(failure, other.failure);
        }

        @Override
        public int hashCode() {
            return Objects.hash(found, failure);
        }

        @Override
        public String toString() {
            return "Probe[found=" + found + ", failure=" + failure + "]";
        }
    }

    private DeviceSignatures() {
    }

    /** {@link #probe(String, long, boolean)} reporting signatures with bad checksums too. */
    public static Probe probe(String path, long timeoutNanos) {
        return probe(path, timeoutNanos, true);
    }

    /**
     * Probes {@code path}; waits at most {@code timeoutNanos} for the answer (a hung device);
     * {@code badChecksums}: signatures whose checksum fails are reported too.
     */
    public static Probe probe(String path, long timeoutNanos, boolean badChecksums) {
        String unavailable = LibBlkid.unavailableReason();
        if (unavailable != null) {
            return new Probe(List.of(), unavailable);
        }
        CompletableFuture<Probe> answer = new CompletableFuture<>();
        // Its own thread, so a device that hangs the read holds the thread, not the node's start.
        Thread prober = new Thread(() -> {
            try {
                answer.complete(probeNow(path, badChecksums));
            } catch (Throwable t) {
                answer.completeExceptionally(t);
            }
        }, "flashchunk-blkid " + path);
        prober.setDaemon(true);
        prober.start();
        try {
            return answer.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return new Probe(List.of(), "libblkid did not answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                    + " ms");
        } catch (ExecutionException e) {
            return new Probe(List.of(), "libblkid failed: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Probe(List.of(), "interrupted while libblkid probed");
        }
    }

    private static Probe probeNow(String path, boolean badChecksums) {
        Pointer probe;
        try {
            probe = LibBlkid.blkid_new_probe_from_filename(path);
        } catch (RuntimeException | LinkageError e) {
            return new Probe(List.of(), "libblkid failed: " + e);
        }
        if (probe == null) {
            return new Probe(List.of(), "libblkid could not open " + path + " read-only");
        }
        try {
            if (LibBlkid.blkid_probe_enable_superblocks(probe, 1) != 0
                    || LibBlkid.blkid_probe_set_superblocks_flags(probe, LibBlkid.SUBLKS_TYPE | LibBlkid.SUBLKS_USAGE
                            | LibBlkid.SUBLKS_MAGIC | (badChecksums ? LibBlkid.SUBLKS_BADCSUM : 0)) != 0
                    || LibBlkid.blkid_probe_enable_partitions(probe, 1) != 0
                    || LibBlkid.blkid_probe_set_partitions_flags(probe, LibBlkid.PARTS_MAGIC) != 0) {
                return new Probe(List.of(), "libblkid refused the probe's settings for " + path);
            }
            List<Signature> found = new ArrayList<>();
            // Each call gives the next probing function's result, in every chain, until 1 (done).
            for (int rc = LibBlkid.blkid_do_probe(probe); rc != 1; rc = LibBlkid.blkid_do_probe(probe)) {
                if (rc != 0 || found.size() == MAX_RESULTS) {
                    return new Probe(List.of(), "libblkid failed to probe " + path + " (blkid_do_probe returned " + rc
                            + " after " + found.size() + " result(s))");
                }
                found.add(result(probe));
            }
            return new Probe(List.copyOf(found), null);
        } catch (RuntimeException | LinkageError e) {
            return new Probe(List.of(), "libblkid failed on " + path + ": " + e);
        } finally {
            LibBlkid.blkid_free_probe(probe);
        }
    }

    /** The current result: a superblock (TYPE) or a partition table (PTTYPE). */
    private static Signature result(Pointer probe) {
        String table = value(probe, "PTTYPE");
        if (table != null) {
            return new Signature(table, "partition table", offset(value(probe, "PTMAGIC_OFFSET")));
        }
        String type = value(probe, "TYPE");
        String usage = value(probe, "USAGE");
        return new Signature(type == null ? "unknown" : type, usage == null ? "unknown use" : usage,
                offset(value(probe, "SBMAGIC_OFFSET")));
    }

    private static String value(Pointer probe, String name) {
        long[] data = new long[1];
        if (LibBlkid.blkid_probe_lookup_value(probe, name, data, null) != 0 || data[0] == 0) {
            return null;
        }
        return new Pointer(data[0]).getString(0);
    }

    private static long offset(String text) {
        try {
            return text == null ? -1 : Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}

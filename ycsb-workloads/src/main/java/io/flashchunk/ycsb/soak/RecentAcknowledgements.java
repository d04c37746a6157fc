package io.flashchunk.ycsb.soak;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * When each key's last few acknowledged writes were acknowledged, so that a lost write can be
 * told apart from a failed one and placed in time: a read {@code k} versions behind may have lost
 * one acknowledged write and {@code k - 1} that were never acknowledged (sent while the node was
 * down), and a loss is explained by a kill only if its writes were acknowledged just before one.
 *
 * <p>Keeps {@link #DEPTH} writes per key in a ring. Not thread-safe per key, like {@link KeyVersions}:
 * each key belongs to one client thread. Saved beside the versions, so the soak's final check can
 * place the losses it finds too.
 */
public final class RecentAcknowledgements {
    /** Acknowledged writes remembered per key. */
    public static final int DEPTH = 8;

    /** An acknowledged write: its version and when the client heard the acknowledgement. */
    public record Write(long version, long acknowledgedAtMillis) {
    }

    private static final int FORMAT = 1;

    private final long[] versions;
    private final long[] times;
    private final int[] next;

    public RecentAcknowledgements(int keys) {
        versions = new long[keys * DEPTH];
        times = new long[keys * DEPTH];
        next = new int[keys];
    }

    /** The write of {@code version} of {@code key} was acknowledged at {@code atMillis}. */
    public void acknowledged(int key, long version, long atMillis) {
        int slot = key * DEPTH + next[key];
        versions[slot] = version;
        times[slot] = atMillis;
        next[key] = (next[key] + 1) % DEPTH;
    }

    /**
     * Takes the remembered acknowledged writes of {@code key} newer than {@code readVersion}, oldest
     * first: a read returned {@code readVersion}, so these were lost. They are forgotten, so a loss is
     * reported once. All {@link #DEPTH} of them means there may have been more.
     */
    public List<Write> takeNewerThan(int key, long readVersion) {
        List<Write> lost = new ArrayList<>();
        for (int i = 0; i < DEPTH; i++) {
            int slot = key * DEPTH + (next[key] + i) % DEPTH;
            if (versions[slot] > readVersion) {
                lost.add(new Write(versions[slot], times[slot]));
                versions[slot] = 0;
            }
        }
        return lost;
    }

    /** Writes the writes remembered to {@code file} (replaced whole, through a temporary file). */
    public void save(Path file) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(temporary);
                DataOutputStream data = new DataOutputStream(new BufferedOutputStream(out))) {
            data.writeInt(FORMAT);
            data.writeInt(next.length);
            for (int key = 0; key < next.length; key++) {
                data.writeByte(next[key]);
                for (int i = key * DEPTH; i < (key + 1) * DEPTH; i++) {
                    data.writeLong(versions[i]);
                    data.writeLong(times[i]);
                }
            }
        }
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Reads what {@link #save} wrote; it must be for {@code keys} keys. */
    public static RecentAcknowledgements load(Path file, int keys) throws IOException {
        try (InputStream in = Files.newInputStream(file);
                DataInputStream data = new DataInputStream(new BufferedInputStream(in))) {
            int format = data.readInt();
            int count = data.readInt();
            if (format != FORMAT || count != keys) {
                throw new IOException(file + " holds acknowledgements of format " + format + " for " + count
                        + " keys; this run has " + keys + " keys (format " + FORMAT + ")");
            }
            RecentAcknowledgements recent = new RecentAcknowledgements(keys);
            for (int key = 0; key < keys; key++) {
                recent.next[key] = data.readByte();
                for (int i = key * DEPTH; i < (key + 1) * DEPTH; i++) {
                    recent.versions[i] = data.readLong();
                    recent.times[i] = data.readLong();
                }
            }
            return recent;
        }
    }
}

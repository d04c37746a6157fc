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

/**
 * What the client knows about each key: the highest version a write of it was acknowledged for,
 * and the highest version it ever sent (acknowledged or not: a write that failed may still have
 * landed). A read may rightly return any version between the two; one below the acknowledged is a
 * lost write, one above the sent or no version at all is a wrong value.
 *
 * <p>Not thread-safe per key: the soak gives each key to one client thread, so no two writes of a
 * key race (their order would otherwise be the driver's timestamps', not the versions').
 */
public final class KeyVersions {
    /** What a read of a key returned, against what was written. */
    public enum Verdict {
        /** A version between the acknowledged and the sent. */
        OK,
        /** An older version than one acknowledged (or no row): an acknowledged write was lost. */
        LOST_WRITE,
        /** No version of this key, or one never sent. */
        WRONG_VALUE
    }

    private static final int FORMAT = 1;

    private final long[] acknowledged;
    private final long[] sent;

    /** Keys that hold nothing yet (version 0: no row). */
    public KeyVersions(int keys) {
        acknowledged = new long[keys];
        sent = new long[keys];
    }

    public int keys() {
        return acknowledged.length;
    }

    /** The version the next write of {@code key} sends; counted as sent from now on. */
    public long nextVersion(int key) {
        return ++sent[key];
    }

    /** The write of {@code version} was acknowledged. */
    public void acknowledged(int key, long version) {
        acknowledged[key] = Math.max(acknowledged[key], version);
    }

    public long acknowledged(int key) {
        return acknowledged[key];
    }

    public long sent(int key) {
        return sent[key];
    }

    /**
     * Judges a read that returned {@code version} (0: no row, -1: a value of no version). After a
     * lost write the key's acknowledged version becomes what the node now holds, so a loss is
     * counted once, not at every later read.
     */
    public Verdict judge(int key, long version) {
        if (version < 0 || version > sent[key]) {
            return Verdict.WRONG_VALUE;
        }
        if (version < acknowledged[key]) {
            acknowledged[key] = version;
            return Verdict.LOST_WRITE;
        }
        return Verdict.OK;
    }

    /** Writes the versions to {@code file} (replaced whole, through a temporary file). */
    public void save(Path file) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(temporary);
                DataOutputStream data = new DataOutputStream(new BufferedOutputStream(out))) {
            data.writeInt(FORMAT);
            data.writeInt(keys());
            for (int key = 0; key < keys(); key++) {
                data.writeLong(acknowledged[key]);
                data.writeLong(sent[key]);
            }
        }
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Reads versions {@link #save} wrote; they must be for {@code keys} keys. */
    public static KeyVersions load(Path file, int keys) throws IOException {
        try (InputStream in = Files.newInputStream(file);
                DataInputStream data = new DataInputStream(new BufferedInputStream(in))) {
            int format = data.readInt();
            int count = data.readInt();
            if (format != FORMAT || count != keys) {
                throw new IOException(file + " holds versions of format " + format + " for " + count
                        + " keys; this run has " + keys + " keys (format " + FORMAT + ")");
            }
            KeyVersions versions = new KeyVersions(keys);
            for (int key = 0; key < keys; key++) {
                versions.acknowledged[key] = data.readLong();
                versions.sent[key] = data.readLong();
            }
            return versions;
        }
    }
}

package io.flashchunk.ycsb.soak;

import java.util.SplittableRandom;

/**
 * The value a soak writes for a key at a version: {@code key:version:} then words drawn from a
 * generator seeded by both, cut to a fixed length. Anyone can recompute it, so a read proves which
 * write it returns, and a value that is no write of its key is caught whole, not by a checksum.
 * Words from a small vocabulary make the value compress like text, so SSTables are compressed.
 */
public final class VersionedValue {
    private static final String[] WORDS = ("cache flash chunk table row node ring token read write "
            + "block page disk space queue index entry file offset length key value version check "
            + "state memory device sector buffer commit log flush compact stream repair hint gossip "
            + "schema keyspace column partition cluster replica quorum latency throughput hit miss "
            + "restart crash recover load warm cold slow fast small large first last next").split(" ");

    private VersionedValue() {
    }

    /** The value of {@code key} at {@code version} (at least 1), {@code length} characters long. */
    public static String of(String key, long version, int length) {
        if (version < 1) {
            throw new IllegalArgumentException("versions start at 1, got " + version);
        }
        StringBuilder text = new StringBuilder(length + 16).append(key).append(':').append(version).append(':');
        SplittableRandom random = new SplittableRandom(key.hashCode() * 0x9E3779B97F4A7C15L + version);
        while (text.length() < length) {
            text.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
        }
        text.setLength(Math.max(length, text.indexOf(":", key.length() + 1) + 1));
        return text.toString();
    }

    /**
     * The version whose value {@code value} is for {@code key}, or -1 if it is the value of no
     * version of that key (another key's, a torn or corrupt one, a wrong length).
     */
    public static long versionIn(String key, String value, int length) {
        if (value == null || !value.startsWith(key + ":")) {
            return -1;
        }
        int end = value.indexOf(':', key.length() + 1);
        if (end < 0) {
            return -1;
        }
        long version;
        try {
            version = Long.parseLong(value.substring(key.length() + 1, end));
        } catch (NumberFormatException e) {
            return -1;
        }
        return version >= 1 && value.equals(of(key, version, length)) ? version : -1;
    }
}

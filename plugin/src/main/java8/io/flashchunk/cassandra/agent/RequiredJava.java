package io.flashchunk.cassandra.agent;

/**
 * The Java the flash cache needs, and whether this JVM has it. Compiled for Java 8 (like the entry
 * points that ask it), so that it loads on every Java Cassandra runs on and can say why the rest of
 * the jar, compiled for 11, must not be touched.
 */
public final class RequiredJava {
    /** The oldest Java feature release the code behind the entry points is compiled for. */
    public static final int FEATURE = 11;

    private RequiredJava() {
    }

    /** The problem with this JVM, or null when it can run the flash cache. */
    public static String problem() {
        return problem(System.getProperty("java.specification.version"), System.getProperty("java.version"));
    }

    /**
     * The problem with a JVM of this {@code java.specification.version} ("1.8", "11", "17") and
     * {@code java.version} ("11.0.13"), or null when it is Java {@link #FEATURE} or later.
     */
    public static String problem(String specificationVersion, String version) {
        int feature = feature(specificationVersion);
        if (feature >= FEATURE) {
            return null;
        }
        return "this JVM is Java " + (version == null ? specificationVersion : version) + "; the flash cache needs Java "
                + FEATURE + " or later";
    }

    /** The feature release of a specification version: 8 for "1.8", 11 for "11"; 0 when unreadable. */
    static int feature(String specificationVersion) {
        if (specificationVersion == null) {
            return 0;
        }
        String major = specificationVersion.startsWith("1.") ? specificationVersion.substring(2) : specificationVersion;
        int dot = major.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? major : major.substring(0, dot));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}

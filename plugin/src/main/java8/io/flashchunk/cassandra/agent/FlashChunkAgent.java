package io.flashchunk.cassandra.agent;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;

/**
 * The java agent's entry point ({@code -javaagent:flashchunk-cassandra.jar}, the jar's
 * Premain-Class). Compiled for Java 8 so that it loads on every Java Cassandra runs on: a class the
 * JVM cannot load here aborts the JVM ("processing of -javaagent failed"), and the cache must never
 * stop a node from starting. On Java 11 or later it hands over to {@link #REWRITER}, which installs the
 * hooks on Cassandra's {@code ChunkCache}; elsewhere, or when anything at all goes wrong, it installs
 * nothing and records why. The configuration loader reads that record and logs it once Cassandra's
 * logging is up (there is none yet while premain runs, so premain logs nothing and touches no
 * Cassandra class).
 */
public final class FlashChunkAgent {
    /** The class, compiled for Java 11, that installs the hooks: {@code public static void install(Instrumentation)}. */
    static final String REWRITER = "io.flashchunk.cassandra.agent.ChunkCacheRewriter";

    private static volatile boolean installed;
    private static volatile String problem;

    private FlashChunkAgent() {
    }

    /** Never throws: whatever fails is recorded in {@link #problem()}, and the node runs stock. */
    public static void premain(String arguments, Instrumentation instrumentation) {
        problem = start(RequiredJava.problem(), instrumentation, REWRITER);
        installed = true;
    }

    /**
     * Installs the hooks through {@code rewriter} unless {@code javaProblem} says this JVM cannot run
     * it; returns null when they are installed, else what stopped them. Catches every Throwable.
     */
    static String start(String javaProblem, Instrumentation instrumentation, String rewriter) {
        if (javaProblem != null) {
            return javaProblem;
        }
        try {
            Class.forName(rewriter, true, FlashChunkAgent.class.getClassLoader())
                    .getMethod("install", Instrumentation.class)
                    .invoke(null, instrumentation);
            return null;
        } catch (InvocationTargetException e) {
            return "the java agent could not install its hooks: " + e.getCause();
        } catch (Throwable e) {
            return "the java agent could not install its hooks: " + e;
        }
    }

    /** Whether this JVM was started with the agent (premain ran), whatever became of its hooks. */
    public static boolean isInstalled() {
        return installed;
    }

    /** Why premain installed no hooks (this Java, or what failed), or null when it installed them. */
    public static String problem() {
        return problem;
    }
}

package io.flashchunk.cassandra.warmup;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds back Cassandra's INFO lines of a native-protocol listener starting and stopping ("Starting
 * listening for CQL clients on ...", "Stop listening for CQL clients") while the warm-up's own
 * listener starts and stops: a tool that waits for that line to call a node ready (as ccm and many
 * restart scripts do) would otherwise take the warm-up's loopback listener for the node's. It raises
 * the two loggers to WARN for the call and puts back the levels they had, through Logback's API by
 * reflection (Cassandra's logging); under another logging backend the lines stay.
 */
final class ListenerLogLines {
    /** The loggers of Cassandra's classes that write those lines, in 4.1, 5.0 and 6.0. */
    private static final List<String> LOGGERS = List.of(
            "org.apache.cassandra.transport.PipelineConfigurator", "org.apache.cassandra.transport.Server");

    private ListenerLogLines() {
    }

    /** Runs {@code action} with the listener's INFO lines held back. */
    static <T, E extends Exception> T heldBack(Action<T, E> action) throws E {
        List<Runnable> restores = new ArrayList<>();
        try {
            for (String name : LOGGERS) {
                restores.add(raiseToWarn(LoggerFactory.getLogger(name)));
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // not Logback: the lines are written
        }
        try {
            return action.run();
        } finally {
            restores.forEach(Runnable::run);
        }
    }

    /** Sets a Logback logger's level to WARN; the returned action puts back the level it had (null: inherited). */
    private static Runnable raiseToWarn(Logger logger) throws ReflectiveOperationException {
        Class<?> levelClass = Class.forName("ch.qos.logback.classic.Level", false, logger.getClass().getClassLoader());
        Method getLevel = logger.getClass().getMethod("getLevel");
        Method setLevel = logger.getClass().getMethod("setLevel", levelClass);
        Object before = getLevel.invoke(logger);
        setLevel.invoke(logger, levelClass.getField("WARN").get(null));
        return () -> {
            try {
                setLevel.invoke(logger, before);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("could not restore the level of " + logger.getName(), e);
            }
        };
    }

    /** What runs with the lines held back. */
    interface Action<T, E extends Exception> {
        T run() throws E;
    }
}

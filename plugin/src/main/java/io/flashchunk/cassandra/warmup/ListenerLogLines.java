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
 * the two loggers to WARN for the call when they would write INFO, and afterwards puts back the level
 * each had unless something (an operator's {@code nodetool setlogginglevel}, a reload of
 * logback.xml) set another meanwhile. Through Logback's API by reflection (Cassandra's logging); under
 * another logging backend the lines stay.
 */
final class ListenerLogLines {
    private static final Logger LOG = LoggerFactory.getLogger(ListenerLogLines.class);
    /** The loggers of Cassandra's classes that write those lines, in 4.1, 5.0 and 6.0. */
    private static final List<String> LOGGERS = List.of(
            "org.apache.cassandra.transport.PipelineConfigurator", "org.apache.cassandra.transport.Server");

    private ListenerLogLines() {
    }

    /** Runs {@code action} with the listener's INFO lines held back. */
    static void heldBack(Runnable action) {
        List<Runnable> restores = new ArrayList<>();
        for (String name : LOGGERS) {
            try {
                restores.add(raiseToWarn(LoggerFactory.getLogger(name)));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                LOG.debug("flash chunk cache: {} left as it is: {}", name, e.toString()); // not Logback: lines written
            }
        }
        try {
            action.run();
        } finally {
            restores.forEach(Runnable::run);
        }
    }

    /**
     * Sets a Logback logger's level to WARN if it would write INFO; the returned action, which never
     * throws, puts back the level it had (null: inherited) if the logger is still at that WARN.
     */
    private static Runnable raiseToWarn(Logger logger) throws ReflectiveOperationException {
        Class<?> levelClass = Class.forName("ch.qos.logback.classic.Level", false, logger.getClass().getClassLoader());
        Method getLevel = logger.getClass().getMethod("getLevel");
        Method setLevel = logger.getClass().getMethod("setLevel", levelClass);
        Object warn = levelClass.getField("WARN").get(null);
        if (!logger.isInfoEnabled()) {
            return () -> { };
        }
        Object before = getLevel.invoke(logger);
        setLevel.invoke(logger, warn);
        return () -> {
            try {
                if (getLevel.invoke(logger) == warn) {
                    setLevel.invoke(logger, before);
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.warn("flash chunk cache: the level of logger {} could not be put back: {}", logger.getName(), e.toString());
            }
        };
    }
}

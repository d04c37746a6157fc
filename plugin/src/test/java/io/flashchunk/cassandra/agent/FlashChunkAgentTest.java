package io.flashchunk.cassandra.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** premain never throws: an old Java or any failure installs nothing and is recorded, word for word. */
class FlashChunkAgentTest {

    /** An Instrumentation that keeps the transformers it is given, or throws {@code failure} at every call. */
    private static Instrumentation instrumentation(List<ClassFileTransformer> added, RuntimeException failure) {
        return (Instrumentation) Proxy.newProxyInstance(FlashChunkAgentTest.class.getClassLoader(),
                new Class<?>[] {Instrumentation.class}, (proxy, method, arguments) -> {
                    if (failure != null) {
                        throw failure;
                    }
                    if (method.getName().equals("addTransformer")) {
                        added.add((ClassFileTransformer) arguments[0]);
                        return null;
                    }
                    throw new AssertionError("unexpected call " + method);
                });
    }

    @Test
    void onJava11And17TheRewriterIsInstalled() {
        for (String[] java : new String[][] {{"11", "11.0.13"}, {"17", "17.0.9"}}) {
            List<ClassFileTransformer> added = new ArrayList<>();
            assertNull(FlashChunkAgent.start(RequiredJava.problem(java[0], java[1]), instrumentation(added, null),
                    FlashChunkAgent.REWRITER));
            assertEquals(1, added.size(), "one transformer on Java " + java[1] + ": " + added);
        }
    }

    @Test
    void onJava8NothingIsInstalledAndTheJavaIsNamed() {
        List<ClassFileTransformer> added = new ArrayList<>();
        assertEquals("this JVM is Java 1.8.0_392; the flash cache needs Java 11 or later",
                FlashChunkAgent.start(RequiredJava.problem("1.8", "1.8.0_392"), instrumentation(added, null),
                        FlashChunkAgent.REWRITER));
        assertEquals(List.of(), added);
    }

    @Test
    void anErrorWhileInstallingIsRecordedNotThrown() {
        assertEquals("the java agent could not install its hooks: java.lang.UnsupportedOperationException: "
                        + "no transformers in this JVM",
                FlashChunkAgent.start(null, instrumentation(new ArrayList<>(),
                        new UnsupportedOperationException("no transformers in this JVM")), FlashChunkAgent.REWRITER));
    }

    @Test
    void aRewriterThatCannotBeLoadedIsRecordedNotThrown() {
        assertEquals("the java agent could not install its hooks: java.lang.ClassNotFoundException: "
                        + "io.flashchunk.cassandra.agent.NoSuchRewriter",
                FlashChunkAgent.start(null, instrumentation(new ArrayList<>(), null),
                        "io.flashchunk.cassandra.agent.NoSuchRewriter"));
    }

    @Test
    void javaVersionsAreReadAsCassandraReleasesRunOnThem() {
        assertEquals("this JVM is Java 1.8.0_392; the flash cache needs Java 11 or later",
                RequiredJava.problem("1.8", "1.8.0_392"));
        assertEquals("this JVM is Java 10.0.2; the flash cache needs Java 11 or later",
                RequiredJava.problem("10", "10.0.2"));
        assertNull(RequiredJava.problem("11", "11.0.13"));
        assertNull(RequiredJava.problem("17", "17.0.9"));
        assertNull(RequiredJava.problem("21", "21.0.1"));
        assertEquals(0, RequiredJava.feature("unknown"));
    }
}

package io.flashchunk.cassandra.agent;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;

/**
 * The java agent's work on Java 11 or later, called by {@link FlashChunkAgent#premain}: rewrites
 * Cassandra's {@code ChunkCache} as it loads so its methods ask the flash cache first, and
 * {@code CassandraDaemon} so that the warm-up before clients runs before it starts them. It only
 * installs the hooks; whether the flash cache runs is decided by the configuration loader from
 * cassandra.yaml, which first checks (through {@link HookCheck}) that the hooks took.
 *
 * <p>It matches the class by name and touches no Cassandra class, so nothing of Cassandra (its
 * configuration above all) is initialised early. It logs nothing: Cassandra's logging is not set
 * up while premain runs, and a problem met while rewriting is recorded for the loader to log.
 */
public final class ChunkCacheRewriter {
    static final String CHUNK_CACHE = "org.apache.cassandra.cache.ChunkCache";
    static final String DAEMON = "org.apache.cassandra.service.CassandraDaemon";
    /** The daemon's method that starts the client transports, in 4.1, 5.0 and 6.0 alike. */
    static final ElementMatcher<? super MethodDescription> START_CLIENT_TRANSPORTS =
            named("startClientTransports").and(takesArguments(0));

    private static volatile boolean chunkCacheInstrumented;
    private static volatile boolean hooksApplied;
    private static volatile boolean clientStartAdviceBuilt;
    private static volatile boolean clientStartHooked;
    private static volatile String clientStartProblem;
    private static final List<String> errors = new ArrayList<>();

    private ChunkCacheRewriter() {
    }

    /** Installs the transformer that rewrites ChunkCache when it loads; premain's Java 11 half. */
    public static void install(Instrumentation instrumentation) {
        ClassFileTransformer rewriter = new AgentBuilder.Default()
                .disableClassFormatChanges()
                .type(named(CHUNK_CACHE))
                .transform(ChunkCacheRewriter::instrument)
                .type(named(DAEMON))
                .transform(ChunkCacheRewriter::instrumentDaemon)
                .with(new AgentBuilder.Listener.Adapter() {
                    @Override
                    public void onTransformation(TypeDescription type, ClassLoader loader, JavaModule module,
                                                 boolean loaded, DynamicType dynamicType) {
                        if (CHUNK_CACHE.equals(type.getName())) {
                            chunkCacheInstrumented = hooksApplied;
                        } else if (DAEMON.equals(type.getName())) {
                            clientStartHooked = clientStartAdviceBuilt;
                        }
                    }

                    @Override
                    public void onError(String typeName, ClassLoader loader, JavaModule module, boolean loaded,
                                        Throwable error) {
                        if (DAEMON.equals(typeName)) {
                            clientStartProblem = "the java agent could not rewrite " + typeName + ": " + error;
                        } else {
                            report("the java agent could not rewrite " + typeName + ": " + error);
                        }
                    }
                })
                .makeRaw();
        // Byte Buddy would describe every class the node loads to find one; its name alone decides.
        instrumentation.addTransformer(new OnlyRewrittenClasses(rewriter));
    }

    /** Hands Byte Buddy the two classes it rewrites and nothing else. */
    private static final class OnlyRewrittenClasses implements ClassFileTransformer {
        private static final String CHUNK_CACHE_INTERNAL = CHUNK_CACHE.replace('.', '/');
        private static final String DAEMON_INTERNAL = DAEMON.replace('.', '/');

        private final ClassFileTransformer rewriter;

        private OnlyRewrittenClasses(ClassFileTransformer rewriter) {
            this.rewriter = rewriter;
        }

        @Override
        public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
                                ProtectionDomain domain, byte[] classFile) throws IllegalClassFormatException {
            return CHUNK_CACHE_INTERNAL.equals(className) || DAEMON_INTERNAL.equals(className)
                    ? rewriter.transform(module, loader, className, redefined, domain, classFile) : null;
        }

        @Override
        public String toString() {
            return "OnlyRewrittenClasses[rewriter=" + rewriter + "]";
        }
    }

    /** One method of ChunkCache the agent rewrites: how an operator would name it, how to find it, its advice. */
    static final class Hook {
        private final String description;
        private final ElementMatcher<? super MethodDescription> method;
        private final Class<?> advice;

        Hook(String description, ElementMatcher<? super MethodDescription> method, Class<?> advice) {
            this.description = description;
            this.method = method;
            this.advice = advice;
        }

        public String description() {
            return description;
        }

        public ElementMatcher<? super MethodDescription> method() {
            return method;
        }

        public Class<?> advice() {
            return advice;
        }

        @Override
        public String toString() {
            return "Hook[description=" + description + ", method=" + method + ", advice=" + advice + "]";
        }
    }

    /**
     * Every hook, all or none: the invalidation hooks keep the cache from serving a chunk of a
     * replaced or rewritten file, so redirecting reads without them would be wrong.
     */
    static final List<Hook> HOOKS = List.of(
            new Hook("wrap(ChunkReader) returning RebuffererFactory", named("wrap").and(takesArguments(1))
                    .and(returns(named("org.apache.cassandra.io.util.RebuffererFactory"))), ChunkCacheAdvice.Wrap.class),
            new Hook("invalidateFile(String)", named("invalidateFile").and(takesArguments(String.class)),
                    ChunkCacheAdvice.InvalidateFile.class),
            new Hook("invalidatePosition(FileHandle, long)", named("invalidatePosition").and(takesArguments(2)),
                    ChunkCacheAdvice.InvalidatePosition.class),
            new Hook("long capacity()", named("capacity").and(takesArguments(0)).and(returns(long.class)),
                    ChunkCacheAdvice.Capacity.class),
            new Hook("int size()", named("size").and(takesArguments(0)).and(returns(int.class)),
                    ChunkCacheAdvice.Size.class),
            new Hook("long weightedSize()", named("weightedSize").and(takesArguments(0)).and(returns(long.class)),
                    ChunkCacheAdvice.WeightedSize.class),
            // 6.0 renamed close() to clear(); each release has one of the two
            new Hook("close() (clear() from 6.0)", named("close").or(named("clear")).and(takesArguments(0)),
                    ChunkCacheAdvice.Close.class));

    /** The hooks {@code type} has no method for (each must match exactly one). */
    static List<String> missingHooks(TypeDescription type) {
        List<String> missing = new ArrayList<>();
        for (Hook hook : HOOKS) {
            if (type.getDeclaredMethods().filter(hook.method()).size() != 1) {
                missing.add(hook.description());
            }
        }
        return missing;
    }

    private static DynamicType.Builder<?> instrument(DynamicType.Builder<?> builder, TypeDescription type,
                                                     ClassLoader loader, JavaModule module,
                                                     java.security.ProtectionDomain domain) {
        List<String> missing = missingHooks(type);
        if (!missing.isEmpty()) {
            report(type.getName() + " of this Cassandra version has no single method " + String.join(", ", missing)
                    + ": the java agent left it as it is");
            return builder;
        }
        for (Hook hook : HOOKS) {
            builder = builder.visit(Advice.to(hook.advice()).on(hook.method()));
        }
        hooksApplied = true;
        return builder;
    }

    /**
     * The daemon's one hook, apart from the chunk cache's: without it only the warm-up before clients
     * is lost, which the loader says when one is set.
     */
    private static DynamicType.Builder<?> instrumentDaemon(DynamicType.Builder<?> builder, TypeDescription type,
                                                           ClassLoader loader, JavaModule module,
                                                           java.security.ProtectionDomain domain) {
        if (type.getDeclaredMethods().filter(START_CLIENT_TRANSPORTS).size() != 1) {
            clientStartProblem = type.getName() + " of this Cassandra version has no single startClientTransports()";
            return builder;
        }
        clientStartAdviceBuilt = true;
        return builder.visit(Advice.to(ClientStartAdvice.class).on(START_CLIENT_TRANSPORTS));
    }

    /**
     * Null when {@code CassandraDaemon} was rewritten to run the warm-up before clients, else why not
     * (what failed, or that the daemon has not been loaded, as in an offline tool).
     */
    public static String clientStartProblem() {
        if (clientStartHooked) {
            return null;
        }
        String problem = clientStartProblem;
        return problem != null ? problem : DAEMON + " was not rewritten (not loaded through the java agent)";
    }

    /**
     * Records a problem met while rewriting. The configuration loader logs it, once, when it
     * checks the hooks before starting the flash cache.
     */
    static void report(String problem) {
        synchronized (errors) {
            errors.add(problem);
        }
    }

    /** Whether Cassandra's ChunkCache has been loaded and rewritten with every hook. */
    public static boolean chunkCacheInstrumented() {
        return chunkCacheInstrumented;
    }

    /** Problems met while rewriting. */
    public static List<String> errors() {
        synchronized (errors) {
            return List.copyOf(errors);
        }
    }
}

package io.flashchunk.cassandra.agent;

import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.utility.JavaModule;

/**
 * The java agent ({@code -javaagent:flashchunk-cassandra.jar}): rewrites Cassandra's
 * {@code ChunkCache} as it loads so its methods ask the flash cache first. It only installs the
 * hooks; whether the flash cache runs is decided by the configuration loader from cassandra.yaml.
 *
 * <p>premain matches the class by name and touches no Cassandra class, so nothing of Cassandra
 * (its configuration above all) is initialised early.
 */
public final class FlashChunkAgent {
    static final String CHUNK_CACHE = "org.apache.cassandra.cache.ChunkCache";

    private static volatile boolean installed;
    private static volatile boolean chunkCacheInstrumented;
    private static final List<String> errors = new ArrayList<>();

    private FlashChunkAgent() {
    }

    public static void premain(String arguments, Instrumentation instrumentation) {
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .type(named(CHUNK_CACHE))
                .transform(FlashChunkAgent::instrument)
                .with(new AgentBuilder.Listener.Adapter() {
                    @Override
                    public void onTransformation(TypeDescription type, ClassLoader loader, JavaModule module,
                                                 boolean loaded, DynamicType dynamicType) {
                        chunkCacheInstrumented = true;
                    }

                    @Override
                    public void onError(String typeName, ClassLoader loader, JavaModule module, boolean loaded,
                                        Throwable error) {
                        synchronized (errors) {
                            errors.add(typeName + ": " + error);
                        }
                    }
                })
                .installOn(instrumentation);
        installed = true;
    }

    private static DynamicType.Builder<?> instrument(DynamicType.Builder<?> builder, TypeDescription type,
                                                     ClassLoader loader, JavaModule module,
                                                     java.security.ProtectionDomain domain) {
        return builder
                .visit(Advice.to(ChunkCacheAdvice.Wrap.class)
                        .on(named("wrap").and(isPublic()).and(takesArguments(1))
                                .and(returns(named("org.apache.cassandra.io.util.RebuffererFactory")))))
                .visit(Advice.to(ChunkCacheAdvice.InvalidateFile.class)
                        .on(named("invalidateFile").and(takesArguments(String.class))))
                .visit(Advice.to(ChunkCacheAdvice.InvalidatePosition.class)
                        .on(named("invalidatePosition").and(takesArguments(2))))
                .visit(Advice.to(ChunkCacheAdvice.Capacity.class)
                        .on(named("capacity").and(takesArguments(0)).and(returns(long.class))))
                .visit(Advice.to(ChunkCacheAdvice.Size.class)
                        .on(named("size").and(takesArguments(0)).and(returns(int.class))))
                .visit(Advice.to(ChunkCacheAdvice.WeightedSize.class)
                        .on(named("weightedSize").and(takesArguments(0)).and(returns(long.class))))
                .visit(Advice.to(ChunkCacheAdvice.Close.class)
                        .on(named("close").and(takesArguments(0))));
    }

    /** Whether this JVM runs with the agent: without it, naming the flash cache in the yaml cannot work. */
    public static boolean isInstalled() {
        return installed;
    }

    /** Whether Cassandra's ChunkCache has been loaded and rewritten. */
    public static boolean chunkCacheInstrumented() {
        return chunkCacheInstrumented;
    }

    /** Problems ByteBuddy reported while rewriting, for the loader to log once logging is up. */
    public static List<String> errors() {
        synchronized (errors) {
            return List.copyOf(errors);
        }
    }
}

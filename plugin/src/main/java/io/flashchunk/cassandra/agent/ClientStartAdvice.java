package io.flashchunk.cassandra.agent;

import io.flashchunk.cassandra.warmup.ReadPathWarmUp;
import net.bytebuddy.asm.Advice;

/**
 * Advice inlined into {@code org.apache.cassandra.service.CassandraDaemon.startClientTransports()}: the
 * warm-up before clients ({@code warm_up_before_clients}) runs first. {@code suppress} keeps a fault in
 * it from ever stopping the node from starting its clients.
 */
final class ClientStartAdvice {
    private ClientStartAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter() {
        ReadPathWarmUp.beforeClientTransports();
    }
}

package io.flashchunk.cassandra.agent;

import io.flashchunk.cassandra.CassandraFlashCache;
import io.flashchunk.cassandra.warmup.ReadPathWarmUp;
import net.bytebuddy.asm.Advice;

/**
 * Advice inlined into {@code org.apache.cassandra.service.CassandraDaemon.startClientTransports()}: with
 * the schema loaded, the settings that name tables are checked against it, then the warm-up before
 * clients ({@code warm_up_before_clients}) runs. {@code suppress} keeps a fault in either from ever
 * stopping the node from starting its clients.
 */
final class ClientStartAdvice {
    private ClientStartAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object daemon) {
        CassandraFlashCache.checkSettingsAgainstSchema();
        ReadPathWarmUp.beforeClientTransports(daemon);
    }
}

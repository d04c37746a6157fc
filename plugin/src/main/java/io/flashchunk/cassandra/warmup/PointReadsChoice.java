package io.flashchunk.cassandra.warmup;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.cassandra.audit.AuditLogManager;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.config.EncryptionOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses how the warm-up's point reads reach the node: through the native protocol, as a client's,
 * where that is as safe as the node's own listener and works; else through the internal path, said
 * in one log line with the reason.
 *
 * <p>The warm-up's listener takes clients without a login and without TLS. So it is opened only when
 * the node's own authenticator asks no login of a client either, its client port takes clients
 * without TLS too (TLS required: a client certificate may be all that keeps clients out), and the
 * audit log is off (it would record
 * each warm-up read as an anonymous client's). One read through it, before the warm-up's threads
 * start, must succeed: a connection limit, a guardrail or a firewall on the loopback that refuses it
 * turns the warm-up to the internal path rather than to a time of failed reads.
 */
final class PointReadsChoice {
    private static final Logger LOG = LoggerFactory.getLogger(PointReadsChoice.class);

    private PointReadsChoice() {
    }

    /**
     * @param daemon the {@code CassandraDaemon} starting its client transports
     * @param tables tables with a partition on this node, of which one key is read once through the
     *     native protocol before it is chosen
     */
    static PointReads choose(Object daemon, List<WarmUpTable> tables) {
        String refusal = nativeProtocolRefusal();
        if (refusal == null) {
            NativeProtocolPointReads reads = null;
            boolean chosen = false;
            try {
                reads = NativeProtocolPointReads.start(daemon);
                refusal = probe(reads, tables);
                chosen = refusal == null;
            } catch (Exception | LinkageError | AssertionError e) {
                refusal = "its loopback listener could not be opened or read through: " + e;
            } finally {
                if (!chosen && reads != null) {
                    reads.close();
                }
            }
            if (chosen) {
                return reads;
            }
        }
        LOG.info("flash chunk cache: the warm-up reads through Cassandra's internal CQL read path, not the native "
                + "protocol: {}", refusal);
        return new InternalPointReads();
    }

    /** Why the native protocol is not for the warm-up on this node; null when it is. */
    static String nativeProtocolRefusal() {
        if (DatabaseDescriptor.getAuthenticator().requireAuthentication()) {
            return "this node's authenticator requires clients to log in";
        }
        EncryptionOptions.TlsEncryptionPolicy tls = clientTls();
        if (tls == null) {
            return "the client port's TLS settings could not be read";
        }
        if (tls == EncryptionOptions.TlsEncryptionPolicy.ENCRYPTED) {
            return "client_encryption_options require TLS of every client, and the warm-up's listener takes clients "
                    + "without it";
        }
        if (AuditLogManager.instance.isEnabled()) {
            return "the audit log is on, and would record each warm-up read";
        }
        return null;
    }

    /**
     * The node's client port's TLS policy; null when it cannot be read. By reflection: 6.0 returns a
     * subclass of 5.0's type from the same getter, which a call compiled against 5.0 would not find.
     */
    private static EncryptionOptions.TlsEncryptionPolicy clientTls() {
        try {
            EncryptionOptions options = (EncryptionOptions) DatabaseDescriptor.class
                    .getMethod("getNativeProtocolEncryptionOptions").invoke(null);
            return options.tlsEncryptionPolicy();
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.debug("flash chunk cache: the client port's TLS settings could not be read", e);
            return null;
        }
    }

    /** Tries of a random token for a key this node owns to read through the listener once. */
    static final int PROBE_TRIES = 16;

    /**
     * Reads through the listener of a key this node is a replica of (a key another node owns could
     * fail for that node's sake), one at each consistency level a reader reads at
     * ({@link DriverReadOptions#consistency}); null when they worked, else why they were not tried.
     */
    private static String probe(PointReads reads, List<WarmUpTable> tables) throws Exception {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < PROBE_TRIES; i++) {
            WarmUpTable table = tables.get(random.nextInt(tables.size()));
            List<ByteBuffer> key = table.keyAtOrAfter(ReadPathWarmUp.randomToken());
            if (key != null && table.replicatedHere(key)) {
                try (PointReads.Reader reader = reads.reader()) {
                    reader.read(table, key);
                    reader.read(table, key);
                }
                return null;
            }
        }
        return "no key this node is a replica of was found in " + PROBE_TRIES + " tries to read through its listener";
    }
}

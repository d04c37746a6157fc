package io.flashchunk.cassandra.warmup;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.cassandra.audit.AuditLogManager;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.config.EncryptionOptions;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.UntypedResultSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses how the warm-up's point reads reach the node: through the native protocol, as a client's,
 * where that is as safe as the node's own listener and works; else through the internal path, said
 * in one log line with the reason.
 *
 * <p>The warm-up's listener takes clients without a login and without TLS. So it is opened only when
 * the node's own authenticator asks no login of a client either, its client port needs no TLS (a
 * client certificate may be all that keeps clients out), and the audit log is off (it would record
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
     * @param probe a table with a partition on this node, read once through the native protocol
     */
    static PointReads choose(Object daemon, WarmUpTable probe) {
        String refusal = nativeProtocolRefusal();
        if (refusal == null) {
            NativeProtocolPointReads reads = null;
            try {
                reads = NativeProtocolPointReads.start(daemon);
                probe(reads, probe);
                return reads;
            } catch (Exception | LinkageError | AssertionError e) {
                if (reads != null) {
                    reads.close();
                }
                refusal = "its loopback listener could not be opened or read through: " + e;
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
        if (tls != EncryptionOptions.TlsEncryptionPolicy.UNENCRYPTED) {
            return tls == null ? "the client port's TLS settings could not be read"
                    : "client_encryption_options are enabled, and the warm-up's listener would take clients without TLS";
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

    private static void probe(PointReads reads, WarmUpTable table) throws Exception {
        UntypedResultSet found = QueryProcessor.executeInternal(table.firstKeyQuery());
        if (found.isEmpty()) {
            return; // emptied since the tables were listed: nothing to read, nothing learnt
        }
        UntypedResultSet.Row row = found.one();
        List<ByteBuffer> key = new ArrayList<>();
        for (String column : table.partitionKey()) {
            key.add(row.getBytes(column));
        }
        try (PointReads.Reader reader = reads.reader()) {
            reader.read(table, key);
        }
    }
}

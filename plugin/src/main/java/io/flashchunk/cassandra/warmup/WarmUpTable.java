package io.flashchunk.cassandra.warmup;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.UntypedResultSet;
import org.apache.cassandra.db.marshal.ByteBufferAccessor;
import org.apache.cassandra.db.marshal.CompositeType;
import org.apache.cassandra.service.StorageService;

/**
 * A table the warm-up reads, and the two statements it reads it with: one that finds a partition key
 * at or after a token (a local read), and the point read by that key a client would send.
 */
public final class WarmUpTable {
    static final int ROWS_A_READ = 10;

    private final String keyspace;
    private final String table;
    private final List<String> partitionKey;

    /** @param partitionKey the partition key's columns, in their order in the key */
    WarmUpTable(String keyspace, String table, List<String> partitionKey) {
        if (partitionKey.isEmpty()) {
            throw new IllegalArgumentException(keyspace + "." + table + " has no partition key column");
        }
        this.keyspace = keyspace;
        this.table = table;
        this.partitionKey = List.copyOf(partitionKey);
    }

    String keyspace() {
        return keyspace;
    }

    List<String> partitionKey() {
        return partitionKey;
    }

    /** The partition key as Cassandra hashes it to a token: the one column's bytes, or their composite. */
    ByteBuffer partitionKeyBytes(List<ByteBuffer> columnValues) {
        return columnValues.size() == 1 ? columnValues.get(0)
                : CompositeType.build(ByteBufferAccessor.instance, columnValues.toArray(ByteBuffer[]::new));
    }

    /**
     * The key (each key column's bytes) of the first partition at or after {@code token} on this node,
     * wrapping past the last to the first; null when the table holds no partition here. Local reads.
     */
    List<ByteBuffer> keyAtOrAfter(ByteBuffer token) {
        UntypedResultSet found = QueryProcessor.executeInternal(keyAtTokenQuery(), token);
        if (found.isEmpty()) {
            found = QueryProcessor.executeInternal(firstKeyQuery());
            if (found.isEmpty()) {
                return null;
            }
        }
        UntypedResultSet.Row row = found.one();
        List<ByteBuffer> key = new ArrayList<>(partitionKey.size());
        for (String column : partitionKey) {
            key.add(row.getBytes(column));
        }
        return key;
    }

    /** Whether this node is one of the replicas of the partition of {@code key}. */
    boolean replicatedHere(List<ByteBuffer> key) {
        return StorageService.instance.getNaturalReplicasForToken(keyspace, partitionKeyBytes(key)).selfIfPresent() != null;
    }

    /** The first partition in token order: its key columns (none when the table holds none here). */
    String firstKeyQuery() {
        return "SELECT " + quotedKey() + " FROM " + name() + " LIMIT 1";
    }

    /** The first partition at or after a token (bound as the token's bytes): its key columns. */
    String keyAtTokenQuery() {
        String key = quotedKey();
        return "SELECT " + key + " FROM " + name() + " WHERE token(" + key + ") >= ? LIMIT 1";
    }

    /**
     * The first {@value #ROWS_A_READ} rows of one key's partition (each key column bound): a client's
     * point read, bounded so that a wide partition costs no more than a narrow one.
     */
    String partitionQuery() {
        return pagedPartitionQuery() + " LIMIT " + ROWS_A_READ;
    }

    /**
     * One key's partition with no limit, as a client's point read asks for it: read a page of
     * {@value #ROWS_A_READ} rows at a time, so that it goes through Cassandra's pager as a driver's
     * paged read does, and a wide partition costs no more than a narrow one.
     */
    String pagedPartitionQuery() {
        return "SELECT * FROM " + name() + " WHERE "
                + partitionKey.stream().map(c -> quote(c) + " = ?").collect(Collectors.joining(" AND "));
    }

    String name() {
        return quote(keyspace) + "." + quote(table);
    }

    private String quotedKey() {
        return partitionKey.stream().map(WarmUpTable::quote).collect(Collectors.joining(", "));
    }

    /**
     * A name as CQL reads it whatever its case or characters: in double quotes, a quote doubled
     * (system_schema holds names exactly as created, so a quoted name always matches).
     */
    static String quote(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    @Override
    public String toString() {
        return keyspace + "." + table;
    }
}

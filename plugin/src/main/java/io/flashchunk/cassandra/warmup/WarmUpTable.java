package io.flashchunk.cassandra.warmup;

import java.util.List;
import java.util.stream.Collectors;
import org.apache.cassandra.cql3.ColumnIdentifier;

/**
 * A table the warm-up reads, and the two statements it reads it with: one that finds a partition key
 * at or after a token (a local read), and the point read by that key a client would send.
 */
final class WarmUpTable {
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

    List<String> partitionKey() {
        return partitionKey;
    }

    /** The first partition at or after a token (bound as the token's bytes): its key columns. */
    String keyAtTokenQuery() {
        String key = quotedKey();
        return "SELECT " + key + " FROM " + name() + " WHERE token(" + key + ") >= ? LIMIT 1";
    }

    /** The whole partition of one key (each key column bound). */
    String partitionQuery() {
        return "SELECT * FROM " + name() + " WHERE "
                + partitionKey.stream().map(c -> ColumnIdentifier.maybeQuote(c) + " = ?").collect(Collectors.joining(" AND "));
    }

    String name() {
        return ColumnIdentifier.maybeQuote(keyspace) + "." + ColumnIdentifier.maybeQuote(table);
    }

    private String quotedKey() {
        return partitionKey.stream().map(ColumnIdentifier::maybeQuote).collect(Collectors.joining(", "));
    }

    @Override
    public String toString() {
        return keyspace + "." + table;
    }
}

package io.flashchunk.cassandra.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The warm-up's statements name any table and key as CQL needs them named. */
class WarmUpTableTest {
    @Test
    void aSimpleKeyReadsItsPartitionAsAClientsPointReadDoes() {
        WarmUpTable table = new WarmUpTable("ycsb", "usertable", List.of("y_id"));
        assertEquals("SELECT \"y_id\" FROM \"ycsb\".\"usertable\" WHERE token(\"y_id\") >= ? LIMIT 1", table.keyAtTokenQuery());
        assertEquals("SELECT * FROM \"ycsb\".\"usertable\" WHERE \"y_id\" = ? LIMIT 10", table.partitionQuery());
        assertEquals("SELECT * FROM \"ycsb\".\"usertable\" WHERE \"y_id\" = ?", table.pagedPartitionQuery(),
                "no limit, so that the pager reads it a page at a time as it does a client's read");
        assertEquals("SELECT \"y_id\" FROM \"ycsb\".\"usertable\" LIMIT 1", table.firstKeyQuery());
        ByteBuffer key = ByteBuffer.wrap(new byte[] {1, 2, 3});
        assertSame(key, table.partitionKeyBytes(List.of(key)), "a one-column key is its column's bytes");
    }

    @Test
    void aCompositeKeyIsHashedAsCassandraSerialisesIt() {
        WarmUpTable table = new WarmUpTable("ks", "t", List.of("a", "b"));
        ByteBuffer built = table.partitionKeyBytes(List.of(ByteBuffer.wrap(new byte[] {7}), ByteBuffer.wrap(new byte[] {8, 9})));
        // each component: a 2-byte length, the bytes, an end-of-component byte 0
        assertEquals(ByteBuffer.wrap(new byte[] {0, 1, 7, 0, 0, 2, 8, 9, 0}), built);
    }

    @Test
    void compositeKeysAndCaseSensitiveOrQuotedNamesAreQuotedInTheKeysOrder() {
        WarmUpTable table = new WarmUpTable("Shop", "order\"s", List.of("Region", "day", "select"));
        assertEquals("SELECT \"Region\", \"day\", \"select\" FROM \"Shop\".\"order\"\"s\" WHERE token(\"Region\", \"day\", "
                + "\"select\") >= ? LIMIT 1", table.keyAtTokenQuery());
        assertEquals("SELECT * FROM \"Shop\".\"order\"\"s\" WHERE \"Region\" = ? AND \"day\" = ? AND \"select\" = ? LIMIT 10",
                table.partitionQuery());
    }

    @Test
    void aTableWithoutAPartitionKeyIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new WarmUpTable("ks", "t", List.of()));
    }
}

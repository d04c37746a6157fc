package io.flashchunk.cassandra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TableChunkFormsTest {
    @Test
    void aDataFilesTableIsItsDirectoryWithoutTheTablesIdAndItsKeyspaceTheOneAbove() {
        assertArrayEquals(new String[] {"ycsb", "usertable"}, TableChunkForms.keyspaceAndTable(
                "/var/lib/cassandra/data/ycsb/usertable-8f2d7e80a1b511ef9d5c3f1e2a4b6c7d/nb-12-big-Data.db"));
        assertArrayEquals(new String[] {"ks", "t"}, TableChunkForms.keyspaceAndTable(
                "/data/ks/t-8f2d7e80a1b511ef9d5c3f1e2a4b6c7d/.t_by_email/nb-3-big-Data.db"),
                "a secondary index's file: its table's");
        assertArrayEquals(new String[] {"ks", "legacy"}, TableChunkForms.keyspaceAndTable("/data/ks/legacy/ks-legacy-ka-1-Data.db"),
                "a directory with no id is the table's name");
        assertArrayEquals(new String[] {null, null}, TableChunkForms.keyspaceAndTable("Data.db"));
        assertEquals("my-table", TableChunkForms.tableName("my-table"), "a dash not before a 32-digit id is the name's");
        assertEquals("my-table", TableChunkForms.tableName("my-table-0123456789abcdef0123456789abcdef"));
    }
}

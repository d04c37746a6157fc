package io.flashchunk.cassandra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.flashchunk.cassandra.config.ChunksOnFlash;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

    @Test
    void theTablesSetApartThatTheSchemaDoesNotKnowAreNamedWhenItCanBeAsked() {
        ChunksOnFlash chunksOnFlash = ChunksOnFlash.parse(Map.of("chunks_on_flash", "auto", "chunks_on_flash_by_table",
                Map.of("ks.usertable", "compressed", "ks.usertabel", "compressed", "other.t", "uncompressed")));
        Set<String> known = Set.of("system.local", "ks.usertable");
        List<String> unknown = TableChunkForms.tablesNotInSchema(chunksOnFlash,
                (keyspace, table) -> known.contains(keyspace + "." + table) ? "LZ4Compressor" : TableChunkForms.NOT_IN_SCHEMA);
        assertEquals(List.of("ks.usertabel", "other.t"), unknown);
        assertNull(TableChunkForms.tablesNotInSchema(chunksOnFlash, (keyspace, table) -> TableChunkForms.NOT_IN_SCHEMA),
                "a schema that knows not even system.local cannot be asked: no name is called unknown");
        assertEquals(List.of(), TableChunkForms.tablesNotInSchema(ChunksOnFlash.parse(Map.of("chunks_on_flash", "auto")),
                (keyspace, table) -> TableChunkForms.NOT_IN_SCHEMA), "nothing set apart, nothing to check");
        assertEquals(List.of(), TableChunkForms.tablesNotInSchema(chunksOnFlash, (keyspace, table) -> null),
                "a table the schema knows as uncompressed is known");
    }
}

package io.flashchunk.cassandra.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChunksOnFlashTest {
    private static Map<String, Object> block(Object... keysAndValues) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("devices", List.of(Map.of("path", "/tmp/flash", "capacity", "1GiB")));
        for (int i = 0; i < keysAndValues.length; i += 2) {
            block.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return block;
    }

    @Test
    void uncompressedByDefaultAutoCompressesWhatCassandraCompressesWithLz4() {
        ChunksOnFlash unset = ChunksOnFlash.parse(block());
        assertFalse(unset.compress("ks", "t", "LZ4Compressor"));
        ChunksOnFlash auto = ChunksOnFlash.parse(block("chunks_on_flash", "auto"));
        assertTrue(auto.compress("ks", "t", "LZ4Compressor"));
        for (String other : new String[] {"ZstdCompressor", "DeflateCompressor", "SnappyCompressor", null}) {
            assertFalse(auto.compress("ks", "t", other), String.valueOf(other));
        }
        ChunksOnFlash all = ChunksOnFlash.parse(block("chunks_on_flash", "Compressed"));
        assertTrue(all.compress("ks", "t", null), "compressed: even a table Cassandra does not compress");
        assertFalse(ChunksOnFlash.parse(block("chunks_on_flash", "uncompressed")).compress("ks", "t", "LZ4Compressor"));
        assertEquals("chunks_on_flash: auto", auto.describe());
    }

    @Test
    void aTableSetApartOverridesTheSettingForItAlone() {
        ChunksOnFlash chunks = ChunksOnFlash.parse(block("chunks_on_flash", "auto",
                "chunks_on_flash_by_table", Map.of("ks.zstd_table", "compressed", "ks.lz4_table", "uncompressed")));
        assertTrue(chunks.compress("ks", "zstd_table", "ZstdCompressor"));
        assertFalse(chunks.compress("ks", "lz4_table", "LZ4Compressor"));
        assertTrue(chunks.compress("ks", "other", "LZ4Compressor"));
        assertTrue(chunks.compress(null, null, "LZ4Compressor"), "a file of no known table: the setting");
        assertEquals("chunks_on_flash: auto, 2 table(s) set apart in chunks_on_flash_by_table", chunks.describe());
    }

    @Test
    void onlyAutoAsksForTheCompressorAndTheDefaultDecidesNothingPerTable() {
        assertTrue(ChunksOnFlash.parse(block()).allUncompressed());
        assertTrue(ChunksOnFlash.parse(block("chunks_on_flash_by_table", Map.of("ks.t", "uncompressed"))).allUncompressed());
        ChunksOnFlash oneTable = ChunksOnFlash.parse(block("chunks_on_flash_by_table", Map.of("ks.t", "compressed")));
        assertFalse(oneTable.allUncompressed());
        assertFalse(oneTable.dependsOnCompressor("ks", "t"));
        ChunksOnFlash auto = ChunksOnFlash.parse(block("chunks_on_flash", "auto",
                "chunks_on_flash_by_table", Map.of("ks.t", "uncompressed")));
        assertFalse(auto.allUncompressed());
        assertTrue(auto.dependsOnCompressor("ks", "other"));
        assertFalse(auto.dependsOnCompressor("ks", "t"), "set apart");
    }

    @Test
    void aWrongValueIsRefusedNamingTheSetting() {
        assertRefused("flash_chunk_cache.chunks_on_flash: 'zstd' is not auto, compressed or uncompressed",
                block("chunks_on_flash", "zstd"));
        assertRefused("flash_chunk_cache.chunks_on_flash: 'true' is not auto, compressed or uncompressed",
                block("chunks_on_flash", true));
        assertRefused("flash_chunk_cache.chunks_on_flash_by_table.ks.t: 'auto' is not compressed or uncompressed",
                block("chunks_on_flash_by_table", Map.of("ks.t", "auto")));
        assertRefused("flash_chunk_cache.chunks_on_flash_by_table.table_only: 'table_only' is not keyspace.table",
                block("chunks_on_flash_by_table", Map.of("table_only", "compressed")));
        assertRefused("flash_chunk_cache.chunks_on_flash_by_table: must be a block",
                block("chunks_on_flash_by_table", List.of("ks.t")));
    }

    private static void assertRefused(String expected, Map<String, Object> block) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ChunksOnFlash.parse(block));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
        // and the whole block's parse refuses it the same way, so a node names it at start
        IllegalArgumentException whole = assertThrows(IllegalArgumentException.class, () -> CacheSettings.parse(block));
        assertEquals(e.getMessage(), whole.getMessage());
    }
}

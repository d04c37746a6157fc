package io.flashchunk.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import site.ycsb.WorkloadException;

class CompressionSettingsTest {
    @Test
    void defaultsAreThePapersDataset() throws Exception {
        CompressionSettings settings = CompressionSettings.from(new Properties());

        assertEquals(new CompressionSettings(0.47, 64, 1L), settings);
        assertEquals(65536, settings.chunkBytes());
    }

    @Test
    void readsEverySetting() throws Exception {
        Properties p = new Properties();
        p.setProperty("flashchunk.compression.reduction", " 0.3 ");
        p.setProperty("flashchunk.compression.chunkkb", "16");
        p.setProperty("flashchunk.compression.seed", "-12");

        assertEquals(new CompressionSettings(0.3, 16, -12L), CompressionSettings.from(p));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
        "flashchunk.compression.reduction, abc",
        "flashchunk.compression.reduction, -0.1",
        "flashchunk.compression.reduction, 0.96",
        "flashchunk.compression.reduction, NaN",
        "flashchunk.compression.chunkkb, 0",
        "flashchunk.compression.chunkkb, 48",
        "flashchunk.compression.chunkkb, 2048",
        "flashchunk.compression.chunkkb, 64KB",
        "flashchunk.compression.seed, 0x10",
    })
    void badValuesAreRefusedNamingTheSetting(String name, String value) {
        Properties p = new Properties();
        p.setProperty(name, value);

        WorkloadException e = assertThrows(WorkloadException.class, () -> CompressionSettings.from(p));

        assertTrue(e.getMessage().startsWith(name + " "), e.getMessage());
        assertTrue(e.getMessage().contains("'" + value + "'"), e.getMessage());
    }
}

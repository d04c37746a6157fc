package io.flashchunk.device.direct;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import io.flashchunk.testing.Scratch;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EngineFallbackTest {
    @Test
    void autoPicksLibaioWhereItLoads() throws Exception {
        Path file = Scratch.file("auto", 8 * 4096);
        try (BlockDevice device = BlockDevices.open(DeviceSpec.of(file))) {
            assertEquals(IoEngine.LIBAIO, device.engine());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** A JVM where libaio.so.1 does not load falls back under "auto", logs why, and refuses an explicit "libaio". */
    @Test
    void autoFallsBackToTheThreadPoolWhereLibaioDoesNotLoad() throws Exception {
        Path file = Scratch.file("fallback", 8 * 4096);
        String missingLibrary = file.resolveSibling("libaio-missing.so.1").toString();
        try {
            Process child = new ProcessBuilder(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"),
                    "-Dflashchunk.libaio.library=" + missingLibrary,
                    EngineFallbackProbe.class.getName(), file.toString()))
                    .redirectErrorStream(true).start();
            String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
            assertEquals(0, child.exitValue(), output);
            assertTrue(output.contains("auto=threadpool"), output);
            assertTrue(output.contains("WARN") && output.contains(missingLibrary) && output.contains("falling back"), output);
            assertTrue(output.contains("libaio-error=engine libaio was asked for " + file) && output.contains(missingLibrary)
                    && output.contains("set the engine to threadpool"), output);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}

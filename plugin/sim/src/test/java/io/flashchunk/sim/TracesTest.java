package io.flashchunk.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TracesTest {
    @TempDir
    Path dir;

    private Path recording(long[] keys, int[] sizes) throws IOException {
        Path file = dir.resolve("reads");
        try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(file))) {
            for (int i = 0; i < keys.length; i++) {
                out.writeLong(keys[i]);
                out.writeInt(sizes[i]);
            }
        }
        return file;
    }

    @Test
    void aRecordingReplaysItsReadsOverTheDistinctChunksItRead() throws IOException {
        long[] keys = {1L << 32, 5, 1L << 32, 5, 9};
        int[] sizes = {16384, 4096, 16384, 4096, 1000};
        ChunkTrace trace = Traces.recorded(recording(keys, sizes), "node");
        assertArrayEquals(keys, trace.keys());
        assertEquals(1000, trace.bytes(4));
        assertEquals((16384 * 2 + 4096 * 2 + 1000) / 5, trace.chunkBytes());
        assertEquals(3L * trace.chunkBytes(), trace.universeBytes());
    }

    @Test
    void aTruncatedOrNonsensicalRecordingIsRefusedNamingTheFile() throws IOException {
        Path file = recording(new long[] {1, 2}, new int[] {4096, 0});
        IOException e = assertThrows(IOException.class, () -> Traces.recorded(file, "node"));
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("0 bytes"), e.getMessage());
        Files.write(file, new byte[5]);
        e = assertThrows(IOException.class, () -> Traces.recorded(file, "node"));
        assertTrue(e.getMessage().contains("0 reads"), e.getMessage());
    }

    @Test
    void theMovingTracesPopularChunksChangeEachPhase() {
        int chunks = 10_000;
        int phases = 4;
        ChunkTrace trace = Traces.zipfianMoving(chunks, 400_000, 4096, phases);
        long[] keys = trace.keys();
        for (int phase = 0; phase < phases; phase++) {
            int[] reads = new int[chunks];
            for (int i = phase * keys.length / phases; i < (phase + 1) * keys.length / phases; i++) {
                assertTrue(keys[i] >= 0 && keys[i] < chunks, "key " + keys[i]);
                reads[(int) keys[i]]++;
            }
            int top = 0;
            for (int key = 1; key < chunks; key++) {
                top = reads[key] > reads[top] ? key : top;
            }
            // Zipfian's most read item is rank 0, moved by a quarter of the chunks each phase.
            assertEquals(phase * chunks / phases, top, "phase " + phase);
        }
        assertEquals((long) chunks * 4096, trace.universeBytes());
    }

    @Test
    void scansReadChunksNothingElseReadsInOrder() {
        int chunks = 20_000;
        ChunkTrace trace = Traces.hotspotWithScans(chunks, 3 * (Traces.READS_BETWEEN_SCANS + Traces.SCAN_CHUNKS), 4096, 1);
        long[] keys = trace.keys();
        int period = Traces.READS_BETWEEN_SCANS + Traces.SCAN_CHUNKS;
        for (int step = 0; step < keys.length; step++) {
            boolean inScan = step % period >= Traces.READS_BETWEEN_SCANS;
            assertEquals(inScan, keys[step] >= chunks, "step " + step);
            if (inScan && step % period > Traces.READS_BETWEEN_SCANS) {
                assertEquals(keys[step - 1] + 1, keys[step], "step " + step);
            }
        }
        assertEquals(2L * chunks * 4096, trace.universeBytes());
    }
}

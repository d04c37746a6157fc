package io.flashchunk.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChunkReadRecorderTest {
    @TempDir
    Path dir;

    private record Read(long key, int bytes) {
    }

    private static List<Read> reads(Path file) throws IOException {
        List<Read> reads = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(Files.newInputStream(file))) {
            for (long i = Files.size(file) / ChunkReadRecorder.RECORD_BYTES; i > 0; i--) {
                reads.add(new Read(in.readLong(), in.readInt()));
            }
        }
        return reads;
    }

    @Test
    void recordsEachReadAsBigEndianKeyAndBytes() throws IOException {
        Path file = dir.resolve("reads");
        try (ChunkReadRecorder recorder = new ChunkReadRecorder(file, 100)) {
            recorder.record(1, 0, 16384);
            recorder.record(1, 16384, 16384);
            recorder.record(7, 65536, 1200);
        }
        assertEquals(List.of(new Read(1L << 32, 16384), new Read((1L << 32) | 4, 16384),
                new Read((7L << 32) | 16, 1200)), reads(file));
    }

    @Test
    void keysTellFilesAndPositionsApart() {
        assertNotEquals(ChunkReadRecorder.key(1, 4096), ChunkReadRecorder.key(2, 4096));
        assertNotEquals(ChunkReadRecorder.key(1, 4096), ChunkReadRecorder.key(1, 8192));
        // a 1 TiB file's last chunk still sits below the file id
        assertEquals(3L << 32 | ((1L << 40) - 4096) >>> 12, ChunkReadRecorder.key(3, (1L << 40) - 4096));
    }

    @Test
    void aRestartedNodeAppendsAfterCuttingATornRecord() throws IOException {
        Path file = dir.resolve("reads");
        try (ChunkReadRecorder recorder = new ChunkReadRecorder(file, 100)) {
            recorder.record(1, 0, 4096);
            recorder.record(1, 4096, 4096);
        }
        // a SIGKILL in the middle of a write leaves part of a record
        Files.write(file, new byte[] {1, 2, 3, 4, 5}, java.nio.file.StandardOpenOption.APPEND);
        try (ChunkReadRecorder recorder = new ChunkReadRecorder(file, 100)) {
            assertEquals(2, recorder.records());
            recorder.record(2, 8192, 4096);
        }
        assertEquals(List.of(new Read(1L << 32, 4096), new Read((1L << 32) | 1, 4096), new Read((2L << 32) | 2, 4096)),
                reads(file));
    }

    @Test
    void stopsAtTheLimitCountingEarlierRecords() throws IOException {
        Path file = dir.resolve("reads");
        try (ChunkReadRecorder recorder = new ChunkReadRecorder(file, 3)) {
            recorder.record(1, 0, 4096);
            recorder.record(1, 4096, 4096);
        }
        try (ChunkReadRecorder recorder = new ChunkReadRecorder(file, 3)) {
            recorder.record(1, 8192, 4096);
            recorder.record(1, 12288, 4096);
            assertEquals(3, recorder.records());
        }
        assertEquals(3, reads(file).size());
    }

    @Test
    void writesTheBufferOutWhenItFills() throws IOException {
        Path file = dir.resolve("reads");
        try (ChunkReadRecorder recorder = new ChunkReadRecorder(file, Long.MAX_VALUE)) {
            int reads = 70_000; // more than one buffer's worth
            for (int i = 0; i < reads; i++) {
                recorder.record(1, (long) i << 12, 4096);
            }
            assertTrue(Files.size(file) > 0 && Files.size(file) < (long) reads * ChunkReadRecorder.RECORD_BYTES,
                    "one full buffer written before close, the rest still buffered: " + Files.size(file));
        }
        assertEquals(70_000, reads(file).size());
    }

    @Test
    void oneRecorderAtATimePerFile() throws IOException {
        Path file = dir.resolve("reads");
        try (ChunkReadRecorder recorder = new ChunkReadRecorder(file, 100)) {
            recorder.record(1, 0, 4096);
            IOException e = assertThrows(IOException.class, () -> new ChunkReadRecorder(file, 100));
            assertTrue(e.getMessage().contains("another recorder"), e.getMessage());
            recorder.record(1, 4096, 4096);
        }
        assertEquals(2, reads(file).size(), "the refused one cut nothing");
        new ChunkReadRecorder(file, 100).close(); // the lock went with the first
    }

    @Test
    void anInterruptedReaderDoesNotEndTheRecording() throws IOException {
        Path file = dir.resolve("reads");
        try (ChunkReadRecorder recorder = new ChunkReadRecorder(file, Long.MAX_VALUE)) {
            Thread.currentThread().interrupt(); // a channel would close itself on the write below
            try {
                for (int i = 0; i < 70_000; i++) {
                    recorder.record(1, (long) i << 12, 4096);
                }
            } finally {
                Thread.interrupted();
            }
            recorder.record(2, 0, 4096);
        }
        assertEquals(70_001, reads(file).size());
    }

    @Test
    void aLimitBelowOneIsRefusedNamingTheOption() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ChunkReadRecorder(dir.resolve("reads"), 0));
        assertTrue(e.getMessage().contains(ChunkReadRecorder.LIMIT_PROPERTY), e.getMessage());
    }
}

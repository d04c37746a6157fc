package io.flashchunk.cache;

import static io.flashchunk.cache.FlashChunkCacheTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.flashchunk.cache.checkpoint.SpaceLayout;
import io.flashchunk.cache.index.CachedFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Checkpoints whose fields pass every checksum but hold values no writer of ours would write (a
 * newer or buggy version, or hostile bytes): recovery must neither size anything by them nor stop
 * the cache from starting.
 */
class HostileCheckpointTest {
    private static final long DEVICE_BYTES = 32L << 20;
    private static final int CHUNK = 16384;
    // Header fields (docs/checkpoint-format.md).
    private static final int SEQUENCE = 32;
    private static final int NEXT_FILE_ID = 48;

    @Test
    void aNextFileIdNearTheLimitIsRecoveredWithoutSizingAnythingByIt() throws Exception {
        assertEquals(16, recoveredAfter(header -> header.putInt(NEXT_FILE_ID, Integer.MAX_VALUE), Integer.MAX_VALUE),
                "every chunk comes back");
    }

    @Test
    void twoAreasWithTheSameSequenceAreBothIgnored() throws Exception {
        // Sequences are never reused: which of the two is current cannot be told, so neither is loaded.
        assertEquals(0, recoveredAfter(header -> header.putLong(SEQUENCE, 1), 2));
    }

    /**
     * Checkpoints 8 chunks (area A), then 16 (area B), changes area B's header (its checksum
     * resealed), restarts, and returns how many chunks came back; checks that a recovery that
     * brought any back hands out no file id below {@code nextFileIdAfter}.
     */
    private static long recoveredAfter(Consumer<ByteBuffer> change, int nextFileIdAfter) throws Exception {
        try (var fixture = new RestartFixture(1, DEVICE_BYTES)) {
            Path data = fixture.dataFile("nb-1-big-Data.db");
            Path device = fixture.devices.get(0);
            Path crashImage = device.resolveSibling(device.getFileName() + ".crash");
            try (FlashChunkCache cache = fixture.start(c -> { })) {
                CachedFile file = cache.registerFile(data);
                for (int i = 0; i < 16; i++) {
                    cache.put(file, (long) i * CHUNK, ChunkContent.buffer(9, (long) i * CHUNK, CHUNK));
                    if (i == 7) {
                        await("the writes", () -> cache.stats().queuedChunks() == 0);
                        assertEquals(1, cache.checkpoint().sequence());
                    }
                }
                await("the writes", () -> cache.stats().queuedChunks() == 0);
                assertEquals(2, cache.checkpoint().sequence(), "the newest is in area B");
                Files.copy(device, crashImage); // what a SIGKILL now leaves
            }
            Files.move(crashImage, device, StandardCopyOption.REPLACE_EXISTING);
            changeHeader(device, 1, change);
            try (FlashChunkCache cache = fixture.start(c -> { })) {
                long recovered = cache.stats().recoveredEntries();
                if (recovered > 0) {
                    assertNotNull(cache.get(cache.registerFile(data), 0));
                    assertEquals(nextFileIdAfter, cache.files().nextId(), "ids a checkpoint may name are never handed out");
                }
                return recovered;
            }
        }
    }

    /** Changes a checkpoint header and reseals its checksum (CRC32C of bytes 0..79, at 80). */
    private static void changeHeader(Path device, int area, Consumer<ByteBuffer> change) throws IOException {
        long at = SpaceLayout.forDevice(DEVICE_BYTES / 4096).areaStart(area) * 4096;
        ByteBuffer header = ByteBuffer.allocate(84).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(device, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            channel.read(header, at);
            change.accept(header);
            CRC32C crc = new CRC32C();
            crc.update(header.array(), 0, 80);
            header.putInt(80, (int) crc.getValue());
            channel.write(header.clear(), at);
        }
    }
}

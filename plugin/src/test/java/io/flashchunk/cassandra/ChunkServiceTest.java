package io.flashchunk.cassandra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.flashchunk.cache.CacheConfig;
import io.flashchunk.cache.FlashCache;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.testing.CountingReadMetrics;
import io.flashchunk.testing.FileChunkReader;
import io.flashchunk.testing.Scratch;
import io.flashchunk.testing.UnpooledMissBuffers;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.cassandra.io.compress.BufferType;
import org.apache.cassandra.io.util.Rebufferer;
import org.apache.cassandra.io.util.Rebufferer.BufferHolder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The adapter's read path (FlashRebufferer, FlashFileReader, ChunkService) on the real cache over an
 * O_DIRECT file, reading real files through a ChunkReader that reads them as Cassandra's does.
 */
class ChunkServiceTest {
    private static final int CHUNK = 4096;

    private Path device;
    private Path dataDir;
    private FlashCache cache;
    private SSTableFiles files;
    private final CountingReadMetrics metrics = new CountingReadMetrics();
    private final UnpooledMissBuffers missBuffers = new UnpooledMissBuffers();
    private ChunkService chunks;

    @BeforeEach
    void openCache() throws IOException {
        device = Scratch.file("chunk-service", 32L << 20);
        dataDir = Files.createTempDirectory(Scratch.dir(), "sstables");
        cache = FlashCache.open(CacheConfig.builder().device(DeviceSpec.of(device)).segmentBytes(1 << 20)
                .checkpointChangePercent(0).build());
        files = new SSTableFiles(cache);
        chunks = new ChunkService(cache, metrics, missBuffers, null);
    }

    @AfterEach
    void closeCache() throws IOException {
        cache.close();
        Files.delete(device);
        try (var listing = Files.list(dataDir)) {
            for (Path file : listing.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(dataDir);
        assertEquals(0, missBuffers.outstanding(), "every miss buffer was given back");
    }

    private static byte[] bytes(long seed, int length) {
        byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }

    private static byte[] read(BufferHolder holder) {
        ByteBuffer buffer = holder.buffer();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    /** The chunk at {@code position} as a new reader of {@code reader}'s file gets it. */
    private byte[] readChunk(FileChunkReader reader, long position) throws IOException {
        FlashRebufferer rebufferer = new FlashRebufferer(reader, files.open(reader.path().toString()), chunks);
        Rebufferer fileReader = rebufferer.instantiateRebufferer(false);
        BufferHolder holder = fileReader.rebuffer(position);
        try {
            return read(holder);
        } finally {
            holder.release();
            fileReader.closeReader();
        }
    }

    /**
     * A file opened early reads a whole chunk from disk, past the length it was opened with; the file is
     * then cut back to that length and written again, longer (a scrub rewriting a partition it could not
     * read): the same file grown, so its cached chunks stay. A reader of the finished file must get the
     * bytes now on disk, not the old ones past the early reader's length.
     */
    @Test
    void bytesPastAReadersLengthAreNeverServedToALongerFile() throws Exception {
        Path data = dataDir.resolve("nb-1-big-Data.db");
        byte[] first = bytes(1, 2 * CHUNK);
        Files.write(data, first);
        int openedLength = 1000;
        try (FileChunkReader early = new FileChunkReader(data, openedLength, CHUNK, BufferType.ON_HEAP)) {
            assertArrayEquals(Arrays.copyOf(first, CHUNK), readChunk(early, 0),
                    "Cassandra gets all the reader returned, as without the cache");
        }
        cache.checkpointNow(); // the offer is in the cache, if it was made
        int earlyId = files.open(data.toString()).id();
        byte[] rewritten = bytes(2, 3 * CHUNK - openedLength);
        try (RandomAccessFile file = new RandomAccessFile(data.toFile(), "rw")) {
            file.setLength(openedLength);
            file.seek(openedLength);
            file.write(rewritten);
        }
        byte[] onDisk = Files.readAllBytes(data);
        try (FileChunkReader finished = new FileChunkReader(data, onDisk.length, CHUNK, BufferType.ON_HEAP)) {
            assertEquals(earlyId, files.open(data.toString()).id(), "the same file, grown: its chunks stay");
            assertArrayEquals(Arrays.copyOf(onDisk, CHUNK), readChunk(finished, 0), "the bytes on disk now");
            assertArrayEquals(Arrays.copyOf(onDisk, CHUNK), readChunk(finished, 0), "and again, maybe from the cache");
        }
    }

    /** A read shorter than the chunk the reader's length promises is nothing a hit could be checked against. */
    @Test
    void aShortReadIsNotOffered() throws Exception {
        Path data = dataDir.resolve("nb-2-big-Data.db");
        byte[] onDisk = bytes(3, CHUNK + 100);
        Files.write(data, onDisk);
        try (FileChunkReader reader = new FileChunkReader(data, 2L * CHUNK, CHUNK, BufferType.ON_HEAP)) {
            assertArrayEquals(Arrays.copyOfRange(onDisk, CHUNK, CHUNK + 100), readChunk(reader, CHUNK),
                    "Cassandra gets what the reader returned");
            assertArrayEquals(Arrays.copyOf(onDisk, CHUNK), readChunk(reader, 0));
        }
        cache.checkpointNow();
        assertEquals(1, cache.stats().puts(), "only the whole chunk was offered");
    }
}

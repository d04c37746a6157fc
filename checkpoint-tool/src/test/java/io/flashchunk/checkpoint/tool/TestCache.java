package io.flashchunk.checkpoint.tool;

import com.fasterxml.jackson.databind.JsonNode;
import io.flashchunk.cache.CacheConfig;
import io.flashchunk.cache.CacheInternals;
import io.flashchunk.cache.FlashCache;
import io.flashchunk.cache.SegmentFlashCache;
import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * A real FlashChunk cache on scratch device files, filled through the plugin's public API: real data
 * files (recovery checks their identities), puts, a checkpoint, then close, which writes the final
 * one. Nothing here writes the on-flash format itself.
 */
final class TestCache {
    static final long DEVICE_BYTES = 16L << 20;
    static final int CHUNK = 16384;
    /** What {@link #standard} puts: 7 chunks of two files. */
    static final int STANDARD_ENTRIES = 7;
    static final long STANDARD_BYTES = 3 * CHUNK + 4096 + 10000 + 65536 + 20000;

    /** A chunk put into the cache. */
    record Chunk(Path file, long position, byte[] bytes) {
    }

    final Path directory;
    final List<Path> devices = new ArrayList<>();
    final Path dataDir;
    final List<Chunk> chunks = new ArrayList<>();

    TestCache(int deviceCount) throws IOException {
        directory = ScratchFiles.newDirectory();
        for (int i = 0; i < deviceCount; i++) {
            Path device = directory.resolve("flash" + i + ".img");
            try (RandomAccessFile file = new RandomAccessFile(device.toFile(), "rw")) {
                file.setLength(DEVICE_BYTES);
            }
            devices.add(device);
        }
        dataDir = Files.createDirectories(directory.resolve("data"));
    }

    /**
     * The standard contents, put in one fill: two SSTable-like files, seven chunks. nb-1: three 16K
     * chunks. nb-2: chunks of 4096, 10000, 65536 and 20000 bytes.
     */
    static TestCache standard(int deviceCount) throws IOException, InterruptedException {
        TestCache cache = new TestCache(deviceCount);
        Path first = cache.dataFile("nb-1-big-Data.db");
        Path second = cache.dataFile("nb-2-big-Data.db");
        cache.fill(List.of(
                chunk(first, 0, CHUNK), chunk(first, CHUNK, CHUNK), chunk(first, 2 * CHUNK, CHUNK),
                chunk(second, 0, 4096), chunk(second, CHUNK, 10000), chunk(second, 4 * CHUNK, 65536),
                chunk(second, 8 * CHUNK, 20000)));
        return cache;
    }

    /**
     * The standard contents on two devices, then a second life that puts one more chunk of nb-1 (at
     * 3 x {@link #CHUNK}): the first life's segment is sealed at its close, and the second opens its
     * own on the other device, so both spaces hold entries and nb-1's are on both.
     */
    static TestCache standardOnTwoSpaces() throws IOException, InterruptedException {
        TestCache cache = standard(2);
        cache.fill(List.of(chunk(cache.dataDir.resolve("nb-1-big-Data.db"), 3 * CHUNK, CHUNK)));
        return cache;
    }

    /**
     * Three 16K chunks of one file, each a quarter pseudo-random bytes and zeros after, stored
     * compressed (the cache's {@code chunks_on_flash: compressed}).
     */
    static TestCache compressed() throws IOException, InterruptedException {
        TestCache cache = new TestCache(1);
        Path file = cache.dataFile("nb-3-big-Data.db");
        List<Chunk> chunks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            byte[] bytes = new byte[CHUNK];
            System.arraycopy(chunk(file, (long) i * CHUNK, CHUNK / 4).bytes(), 0, bytes, 0, CHUNK / 4);
            chunks.add(new Chunk(file, (long) i * CHUNK, bytes));
        }
        cache.fill(chunks, true);
        return cache;
    }

    /** A real data file; its identity (path, size, modification time, inode) is what the cache records. */
    Path dataFile(String name) throws IOException {
        return Files.write(dataDir.resolve(name), ("data of " + name).getBytes(StandardCharsets.UTF_8));
    }

    /** A chunk of pseudo-random bytes, different for each file and position. */
    static Chunk chunk(Path file, long position, int length) {
        byte[] bytes = new byte[length];
        new Random(file.hashCode() * 31L + position).nextBytes(bytes);
        return new Chunk(file, position, bytes);
    }

    /**
     * Starts a cache on the devices (segments of 1 MiB; recovering what an earlier fill left, or
     * formatting them), offers the chunks (a chunk without bytes is an invalidation of its position
     * instead), checks that the writer took them all, asks for a checkpoint, and closes the cache,
     * which seals the open segment and writes another.
     */
    void fill(List<Chunk> newChunks) throws IOException, InterruptedException {
        fill(newChunks, false);
    }

    /** As {@link #fill(List)}, the files' chunks stored compressed when {@code compressed}. */
    void fill(List<Chunk> newChunks, boolean compressed) throws IOException, InterruptedException {
        CacheConfig built = onDevices(CacheConfig.builder().segmentBytes(1 << 20)
                .checkpointIntervalMillis(3_600_000).checkpointChangePercent(0));
        try (SegmentFlashCache cache = new SegmentFlashCache(built, open(built), System::nanoTime)) {
            Map<Path, CachedFile> files = new HashMap<>();
            for (Chunk chunk : newChunks) {
                CachedFile file = files.computeIfAbsent(chunk.file(), path -> register(cache, path));
                file.storeCompressed(compressed);
                if (chunk.bytes() == null) {
                    cache.invalidatePosition(file, chunk.position());
                    continue;
                }
                cache.put(file, chunk.position(), ByteBuffer.wrap(chunk.bytes()), System.nanoTime());
            }
            if (!cache.checkpointNow().contains("checkpoint written")) {
                throw new AssertionError("no checkpoint: " + cache.stats());
            }
            long puts = newChunks.stream().filter(chunk -> chunk.bytes() != null).count();
            if (cache.stats().puts() != puts || cache.stats().engine().notAdmitted() > 0
                    || compressed && cache.stats().engine().compression().compressedChunks() != puts) {
                throw new AssertionError("not every chunk was taken: " + cache.stats());
            }
        }
        for (Chunk chunk : newChunks) {
            if (chunk.bytes() == null) {
                chunks.removeIf(c -> c.file().equals(chunk.file()) && c.position() == chunk.position());
            } else {
                chunks.add(chunk);
            }
        }
    }

    /**
     * Starts a cache on the devices, writes a full checkpoint, offers {@code newChunks}, writes a
     * checkpoint delta naming them, and copies the device files as they are then, as a crash right
     * after the delta leaves them (the cache is then closed, on the originals). Returns a cache of the
     * copies, with this one's data files.
     */
    TestCache crashedAfterADelta(List<Chunk> newChunks) throws IOException, InterruptedException {
        CacheConfig built = onDevices(CacheConfig.builder().segmentBytes(1 << 20)
                .checkpointIntervalMillis(3_600_000).checkpointChangePercent(0));
        List<Path> copies = new ArrayList<>();
        try (SegmentFlashCache cache = new SegmentFlashCache(built, open(built), System::nanoTime)) {
            cache.checkpointNow();
            Map<Path, CachedFile> files = new HashMap<>();
            for (Chunk chunk : newChunks) {
                cache.put(files.computeIfAbsent(chunk.file(), path -> register(cache, path)), chunk.position(),
                        ByteBuffer.wrap(chunk.bytes()), System.nanoTime());
            }
            if (!CacheInternals.engine(cache).checkpoint(10, TimeUnit.SECONDS)
                    || CacheInternals.engine(cache).lastCheckpoint().deltaSpaces() != devices.size()) {
                throw new AssertionError("no delta: " + CacheInternals.engine(cache).lastCheckpoint());
            }
            for (Path device : devices) {
                Path copy = directory.resolve("crashed-" + device.getFileName());
                Files.copy(device, copy);
                copies.add(copy);
            }
        }
        TestCache crashed = new TestCache(directory, copies, dataDir);
        crashed.chunks.addAll(chunks);
        crashed.chunks.addAll(newChunks);
        return crashed;
    }

    private TestCache(Path directory, List<Path> devices, Path dataDir) {
        this.directory = directory;
        this.devices.addAll(devices);
        this.dataDir = dataDir;
    }

    /** The configuration with this cache's device files, in order. */
    private CacheConfig onDevices(CacheConfig.Builder config) {
        for (Path device : devices) {
            config.device(DeviceSpec.of(device).withQueueDepth(16));
        }
        return config.build();
    }

    private static List<BlockDevice> open(CacheConfig config) throws IOException {
        List<BlockDevice> opened = new ArrayList<>();
        for (DeviceSpec spec : config.devices()) {
            opened.add(BlockDevices.open(spec));
        }
        return opened;
    }

    private static CachedFile register(FlashCache cache, Path path) {
        try {
            return cache.registerFile(FileIdentity.of(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Device paths as command-line arguments, in the cache's order, followed by {@code more}. */
    String[] args(String subcommand, String... more) {
        List<String> args = new ArrayList<>();
        args.add(subcommand);
        devices.forEach(device -> args.add(device.toString()));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    /**
     * The device byte where a listed entry's record starts, from {@code info --json}'s superblock of
     * its device and the entry as {@code list --json} gives it.
     */
    static long recordByte(JsonNode superblock, JsonNode entry) {
        return superblock.get("segmentsFromByte").longValue()
                + entry.get("segment").longValue() * superblock.get("segmentBytes").longValue()
                + entry.get("offsetInSegment").longValue();
    }

    /** Inverts every bit of one byte of a file (a device image), bypassing the cache. */
    static void flipByte(Path file, long offset) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            if (channel.read(one, offset) != 1) {
                throw new IOException("no byte at " + offset + " of " + file);
            }
            one.put(0, (byte) ~one.get(0)).rewind();
            channel.write(one, offset);
            channel.force(true);
        }
    }
}

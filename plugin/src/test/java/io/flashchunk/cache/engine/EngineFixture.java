package io.flashchunk.cache.engine;

import io.flashchunk.buffer.AlignedBufferPool;
import io.flashchunk.cache.checkpoint.CheckpointSchedule;
import io.flashchunk.cache.checkpoint.Checkpointer;
import io.flashchunk.cache.checkpoint.Recovery;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.files.ChunkKeys;
import io.flashchunk.cache.files.NamedFiles;
import io.flashchunk.cache.format.CheckpointAreas;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.read.FlashReadGate;
import io.flashchunk.cache.read.FlashReadPolicy;
import io.flashchunk.cache.read.SegmentReader;
import io.flashchunk.cache.reclaim.ReclaimOrder;
import io.flashchunk.cache.space.AddressSpace;
import io.flashchunk.cache.space.AddressSpaces;
import io.flashchunk.cache.space.DeviceStart;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.cache.write.SegmentBuffer;
import io.flashchunk.cache.write.SegmentWriter;
import io.flashchunk.cache.write.Writer;
import io.flashchunk.cache.write.WriterPolicy;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.MemoryDevice;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The engine's parts put together over block devices, one address space each, for tests:
 * 256 KiB segments from the second MiB of each device on, checkpoint areas in the first MiB, and
 * chunks whose bytes are a function of their key.
 */
public final class EngineFixture {
    public static final int SEGMENT_BYTES = 256 * 1024;
    public static final int CHUNK = 16384;
    /** The segment buffers' windows: 72 KiB, so a segment of 16 KiB chunks is written in four pieces. */
    public static final int WINDOW_BYTES = SegmentBuffer.windowFor(SEGMENT_BYTES);
    public static final long FIRST_BYTE = 1 << 20;
    /** Checkpoint areas in the first MiB: A from block 1, B from block 128, 126 body blocks each. */
    public static final CheckpointAreas AREAS = new CheckpointAreas(1, 128, 126L * BlockDevice.BLOCK_SIZE);
    /** Records of full chunks one segment holds, its summary counted. */
    public static final int PER_SEGMENT = (SEGMENT_BYTES - 4096) / RecordFormat.recordBytes(CHUNK, RecordAddress.MIN_SECTOR_BYTES);
    /** The cache instance the writer's own checkpoints name on devices the fixture laid out. */
    public static final UUID INSTANCE = new UUID(0x5e6d3e47L, 0x1L);

    /** The parts as the engine wires them; the fields below are theirs. */
    public final EngineParts parts;
    public final SegmentTable table;
    public final ChunkIndex index;
    public final ReclaimOrder order;
    /** The devices' address spaces, in the order the fixture was given them. */
    public final AddressSpaces spaces;
    public final SegmentWriter segmentWriter;
    /**
     * The writer's steps over {@link #segmentWriter}, as the engine's writer thread runs them: an
     * append that finds no segment writes the checkpoint that releases doomed ones (instance
     * {@link #INSTANCE}, or the formatting start's) and appends again.
     */
    public final Writer writer;
    public final SegmentReader reader;
    /** Reads refused because flash held another record (a miss, never served). */
    public long mismatches;
    /** What formatted the devices, or null (the fixture's own layout). */
    private final DeviceStart.Outcome start;

    /**
     * Which segment the reclaim takes next. The engine's order unless a test must know which segment
     * goes (that dead files' segments go before the order's turn, which segment's chunks admission is
     * shown, how many entries a checkpoint names); the engine's order also gives segments up as they
     * are written, and those wait doomed for the next checkpoint.
     */
    public enum Order {
        /** The engine's: W-TinyLFU over segments, with the engine's room. */
        ENGINE,
        /** The oldest segment first, only when one is needed (the same reclaim path, a known victim). */
        OLDEST_FIRST
    }

    public EngineFixture(BlockDevice... devices) {
        this(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, devices);
    }

    public EngineFixture(long timeoutNanos, Order order, BlockDevice... devices) {
        this(timeoutNanos, order, WriterPolicy.NONE, devices);
    }

    public EngineFixture(long timeoutNanos, Order order, WriterPolicy policy, BlockDevice... devices) {
        this(null, timeoutNanos, order, policy, devices);
    }

    /**
     * The parts over devices {@link DeviceStart} formatted ({@code start}: their layouts and
     * checkpoint areas, segments of {@link #SEGMENT_BYTES}), with its reserved sequences; null: the
     * fixture's own layout, no superblock.
     */
    public EngineFixture(DeviceStart.Outcome start, long timeoutNanos, Order reclaimOrder, WriterPolicy policy,
                         BlockDevice... devices) {
        this(start, null, timeoutNanos, reclaimOrder, policy, devices);
    }

    /**
     * The parts over one device whose segments are where {@code layout} puts them (its segments of
     * {@link #SEGMENT_BYTES}, any sector size), checkpoint areas {@link #AREAS}, no superblock: a
     * layout no start gives a small device, such as segments past 4 TiB of a sparse file.
     */
    public static EngineFixture laidOut(SegmentLayout layout, BlockDevice device) {
        return new EngineFixture(null, layout, TimeUnit.SECONDS.toNanos(5), Order.ENGINE, WriterPolicy.NONE, device);
    }

    private EngineFixture(DeviceStart.Outcome start, SegmentLayout given, long timeoutNanos, Order reclaimOrder,
                          WriterPolicy policy, BlockDevice... devices) {
        this.start = start;
        List<AddressSpace> list = new ArrayList<>();
        long records = 0;
        for (int i = 0; i < devices.length; i++) {
            SegmentLayout layout = start != null ? start.layouts().get(i).segmentLayout()
                    : given != null ? given
                    : SegmentLayout.of(FIRST_BYTE, SEGMENT_BYTES, devices[i].capacityBlocks() * BlockDevice.BLOCK_SIZE,
                            RecordAddress.MIN_SECTOR_BYTES);
            if (layout.segmentBytes() != SEGMENT_BYTES) {
                throw new IllegalArgumentException("the fixture's segments are " + SEGMENT_BYTES + " bytes: " + layout);
            }
            CheckpointAreas areas = start != null ? start.layouts().get(i).areas() : AREAS;
            list.add(new AddressSpace(i, new StorageDriver(devices[i], 2, timeoutNanos), layout, areas));
            // The index has room for every record the flash can hold, compressed ones too (a quarter of a chunk).
            records += (long) layout.segments() * (SEGMENT_BYTES / RecordFormat.recordBytes(CHUNK / 4, layout.sectorBytes()));
        }
        spaces = new AddressSpaces(list);
        // The engine's wiring; reads wait as long as the drivers do (a shared machine may stall one
        // past a short timeout).
        parts = EngineParts.wire(spaces, new EngineParts.Spec(records, reclaimOrder == Order.ENGINE, policy,
                new AlignedBufferPool(1 << 20, 1 << 22),
                new FlashReadPolicy(false, timeoutNanos, FlashReadGate.OPEN, System::nanoTime)));
        table = parts.table;
        index = parts.index;
        order = parts.order;
        segmentWriter = parts.segmentWriter;
        reader = parts.reader;
        if (start != null) {
            table.continueSequencesFrom(start.sequenceFloor());
            table.limitSequences(start.sequenceFloor() + DeviceStart.SEQUENCES_PER_START);
        }
        // Checkpoints only when an append needs one: none due by count or time (the clock stands still,
        // so after a failed checkpoint none is tried again, where the engine retries after a while).
        writer = parts.writer(checkpointer(start != null ? start.instance() : INSTANCE),
                new CheckpointSchedule(Integer.MAX_VALUE, Long.MAX_VALUE, SEGMENT_BYTES, 0, () -> 0), NO_FILES, () -> 0);
    }

    public static MemoryDevice device(String name, int segments) {
        return MemoryDevice.blank(name, (FIRST_BYTE + (long) segments * SEGMENT_BYTES) / BlockDevice.BLOCK_SIZE, 8);
    }

    public static long key(int i) {
        return ChunkKeys.key(1 + i / 1000, (long) (i % 1000) * CHUNK);
    }

    public static ByteBuffer chunk(long key) {
        byte[] bytes = new byte[CHUNK];
        new Random(key).nextBytes(bytes);
        return ByteBuffer.wrap(bytes);
    }

    /** Reads chunks 0..n-1 through {@code engine}: each its own bytes or a miss; returns the hits. */
    public static int readAll(CacheEngine engine, int n) {
        return readAll(engine, n, EngineFixture::chunk);
    }

    /** As {@link #readAll(CacheEngine, int)}, each chunk's bytes as {@code content} gives them for its key. */
    public static int readAll(CacheEngine engine, int n, java.util.function.LongFunction<ByteBuffer> content) {
        int hits = 0;
        for (int i = 0; i < n; i++) {
            ByteBuffer into = ByteBuffer.allocate(CHUNK);
            if (engine.read(key(i), CHUNK, into) != -1) {
                org.junit.jupiter.api.Assertions.assertEquals(content.apply(key(i)), into.flip(), "chunk " + i);
                hits++;
            }
        }
        return hits;
    }

    /** A chunk of {@code key}'s bytes for a quarter of it, then zeros: LZ4 stores it in about a quarter. */
    public static ByteBuffer compressible(long key) {
        ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
        chunk.put(chunk(key).limit(CHUNK / 4)).clear();
        return chunk;
    }

    /** {@code files}, but with every file's chunks now stored as they are ({@link NamedFiles#storesUncompressed}). */
    public static NamedFiles storingUncompressed(NamedFiles files) {
        return new NamedFiles() {
            @Override
            public io.flashchunk.cache.files.FileTableCodec.Encoded table() {
                return files.table();
            }

            @Override
            public int nextFileId() {
                return files.nextFileId();
            }

            @Override
            public boolean isLive(int fileId) {
                return files.isLive(fileId);
            }

            @Override
            public boolean storesUncompressed(int fileId) {
                return true;
            }
        };
    }

    /** A checkpoint's files: this table, this next id. */
    public static NamedFiles named(io.flashchunk.cache.files.FileTableCodec.Encoded table, int nextFileId) {
        return new NamedFiles() {
            @Override
            public io.flashchunk.cache.files.FileTableCodec.Encoded table() {
                return table;
            }

            @Override
            public int nextFileId() {
                return nextFileId;
            }

            @Override
            public boolean isLive(int fileId) {
                return true;
            }
        };
    }

    /** No files, next id 1. */
    public static final NamedFiles NO_FILES = named(io.flashchunk.cache.files.FileTableCodec.encode(java.util.List.of()), 1);

    /** A checkpointer of this engine for a cache that starts with the areas as {@code areaSequences} say. */
    public Checkpointer checkpointer(UUID instance, long[][] areaSequences, LongSupplier clockMillis) {
        return parts.checkpointer(instance, areaSequences, 0, clockMillis);
    }

    /** A checkpointer of this engine after {@code recovered}, as the engine makes one. */
    public Checkpointer checkpointer(UUID instance, Recovery.Outcome recovered, LongSupplier clockMillis) {
        return parts.checkpointer(instance, recovered, clockMillis);
    }

    /** A checkpointer of this engine on devices with no checkpoint yet. */
    public Checkpointer checkpointer(UUID instance) {
        return checkpointer(instance, new long[spaces.count()][2], () -> 0);
    }

    /** Recovers this (unused) engine from its devices' checkpoints. */
    public Recovery.Outcome recover(UUID instance) {
        return parts.recover(instance);
    }

    /** The first segment in {@code state}, or -1. */
    public int firstIn(SegmentState state) {
        for (int segment = 0; segment < table.segments(); segment++) {
            if (table.state(segment) == state) {
                return segment;
            }
        }
        return -1;
    }

    /** The chunk read back, or null on a miss; a record refused is a miss, counted in {@link #mismatches}. */
    public ByteBuffer read(long key) throws Exception {
        ByteBuffer into = ByteBuffer.allocate(CHUNK);
        try {
            return reader.read(key, CHUNK, into) == -1 ? null : into.flip();
        } catch (RecordMismatchException e) {
            mismatches++;
            return null;
        }
    }

    /** Every chunk below {@code keys} read back: its own bytes or a miss; returns the hits. */
    public int hits(int keys) throws Exception {
        int hits = 0;
        for (int i = 0; i < keys; i++) {
            ByteBuffer read = read(key(i));
            if (read != null) {
                org.junit.jupiter.api.Assertions.assertEquals(chunk(key(i)), read,
                        "chunk " + i + " served another chunk's bytes");
                hits++;
            }
        }
        return hits;
    }
}

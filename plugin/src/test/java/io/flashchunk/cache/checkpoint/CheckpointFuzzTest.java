package io.flashchunk.cache.checkpoint;

import static io.flashchunk.cache.engine.EngineFixture.AREAS;
import static io.flashchunk.cache.engine.EngineFixture.PER_SEGMENT;
import static io.flashchunk.cache.engine.EngineFixture.chunk;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.engine.EngineFixture;
import io.flashchunk.cache.engine.EngineFixture.Order;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.cache.files.FileRegistry;
import io.flashchunk.cache.files.FileTableCodec;
import io.flashchunk.cache.files.NamedFiles;
import io.flashchunk.cache.format.CheckpointHeader;
import io.flashchunk.cache.format.DeltaHeader;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.MemoryDevice;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Hostile checkpoint bytes: two valid full checkpoints and a delta after the second are damaged at
 * random (bits flipped, header fields set to extreme values, body bytes overwritten), half of the
 * damage resealed with fresh checksums so it gets past them into the parsers. Recovery must end normally every time, refusing what it cannot
 * trust, and whatever it restores must serve each chunk's own bytes or miss.
 */
class CheckpointFuzzTest {
    private static final UUID INSTANCE = UUID.randomUUID();
    private static final int ROUNDS = 400;
    private static final int KEYS = 6 * PER_SEGMENT;

    @Test
    void damagedCheckpointsAreRefusedOrRestoreOnlyRightChunks() throws Exception {
        byte[] image = twoCheckpoints();
        SplittableRandom random = new SplittableRandom(20261125);
        int untouched = 0;
        int refusedSome = 0;
        for (int round = 0; round < ROUNDS; round++) {
            MemoryDevice device = new MemoryDevice("fuzz", image.clone(), 8);
            int area = random.nextInt(3);
            String damage = area == 2 ? damageDelta(device, random) : damage(device, area, random);
            EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, device);
            Recovery.Outcome outcome;
            try {
                outcome = after.recover(INSTANCE);
            } catch (RuntimeException | Error e) {
                fail("round " + round + " (" + damage + "): recovery failed with " + e + " instead of refusing", e);
                return;
            }
            assertEquals(outcome.restoredEntries(), after.index.entries(), "round " + round + " (" + damage + ")");
            int hits = 0;
            for (int i = 0; i < KEYS; i++) {
                ByteBuffer read = after.read(key(i));
                if (read != null) {
                    assertEquals(chunk(key(i)), read, "round " + round + " (" + damage + "): chunk " + i
                            + " served another chunk's bytes");
                    hits++;
                }
            }
            assertTrue(hits <= outcome.restoredEntries(), "round " + round);
            if (outcome.problems().isEmpty()) {
                untouched++;
            } else {
                refusedSome++;
            }
        }
        assertTrue(untouched > 0 && refusedSome > 0, "every round alike (" + untouched + " recovered without a problem, "
                + refusedSome + " with): the damage tested nothing");
    }

    /**
     * A device with two full checkpoints (areas A and B, the second as a run's first after a restart),
     * then a delta after the one in B naming two more segments; a file table of three files in each.
     */
    private static byte[] twoCheckpoints() throws Exception {
        // Room in the engine's order for the six segments written: none doomed, every chunk named.
        MemoryDevice device = EngineFixture.device("fuzz", 8);
        EngineFixture engine = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, device);
        Checkpointer checkpointer = engine.checkpointer(INSTANCE);
        FileRegistry registry = new FileRegistry();
        for (int f = 1; f <= 3; f++) {
            registry.register(new FileIdentity("/data/ks/t-" + f + "/nb-" + f + "-big-Data.db", f << 20, f * 1_000L, 10 + f,
                    5_000 + f, f), replaced -> { });
        }
        NamedFiles files = EngineFixture.named(FileTableCodec.encode(registry.live()), registry.nextId());
        for (int c = 0; c < 3; c++) {
            for (int i = 2 * c * PER_SEGMENT; i < 2 * (c + 1) * PER_SEGMENT; i++) {
                assertTrue(engine.segmentWriter.append(key(i), chunk(key(i))), "chunk " + i);
            }
            engine.segmentWriter.flush();
            if (c == 1) {
                checkpointer = engine.checkpointer(INSTANCE, checkpointer.areaSequences(), () -> 0);
            }
            assertEquals(c == 2 ? 1 : 0, checkpointer.checkpoint(files).deltaSpaces(), "checkpoint " + c);
        }
        return device.image();
    }

    /** The first block of the delta after area B's full checkpoint. */
    private static long deltaBlock(MemoryDevice device) throws Exception {
        CheckpointHeader b = CheckpointHeader.decode(block(device, AREAS.start(1)), AREAS.bodyCapacityBytes(), "area B");
        return AREAS.start(1) + 1 + (b.bodyBytes() + BlockDevice.BLOCK_SIZE - 1) / BlockDevice.BLOCK_SIZE;
    }

    /** Damages the delta one random way; what was done, for messages. */
    private static String damageDelta(MemoryDevice device, SplittableRandom random) throws Exception {
        long at = deltaBlock(device);
        long capacity = (AREAS.start(1) + 1 + AREAS.bodyCapacityBytes() / BlockDevice.BLOCK_SIZE - at - 1)
                * BlockDevice.BLOCK_SIZE;
        ByteBuffer header = block(device, at);
        DeltaHeader h = DeltaHeader.decode(header.duplicate(), capacity, "delta");
        switch (random.nextInt(4)) {
            case 0 -> {
                int byteAt = random.nextInt(BlockDevice.BLOCK_SIZE);
                header.put(byteAt, (byte) (header.get(byteAt) ^ (1 << random.nextInt(8))));
                write(device, at, header);
                return "a bit of the delta's header at " + byteAt;
            }
            case 1 -> {
                long value = switch (random.nextInt(5)) {
                    case 0 -> -1;
                    case 1 -> Integer.MAX_VALUE;
                    case 2 -> Long.MAX_VALUE;
                    case 3 -> 0;
                    default -> random.nextLong(1 << 20);
                };
                int field = random.nextInt(6);
                int asInt = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, value));
                DeltaHeader changed = new DeltaHeader(h.instance(), h.spaceIndex(),
                        field == 0 ? value : h.sequence(), field == 1 ? value : h.baseSequence(),
                        field == 2 ? asInt : h.position(), h.timestampMillis(), h.nextFileId(), h.fileCount(),
                        h.fileTableBytes(), h.segments(), h.segmentBytes(), field == 3 ? value : h.changes(),
                        field == 4 ? value : h.forgotten(), h.ahead(), field == 5 ? value : h.nextSegmentSequence(),
                        h.bodyCrc());
                write(device, at, changed.encode());
                return "the delta's header field " + field + " set to " + value + ", resealed";
            }
            default -> {
                long lba = at + 1 + random.nextLong(Math.max(1, h.blocks() - 1));
                ByteBuffer body = block(device, lba);
                int byteAt = random.nextInt(BlockDevice.BLOCK_SIZE - 8);
                body.order(ByteOrder.LITTLE_ENDIAN).putInt(byteAt, random.nextInt());
                write(device, lba, body);
                boolean reseal = random.nextBoolean();
                if (reseal) {
                    DeltaHeader resealed = new DeltaHeader(h.instance(), h.spaceIndex(), h.sequence(), h.baseSequence(),
                            h.position(), h.timestampMillis(), h.nextFileId(), h.fileCount(), h.fileTableBytes(),
                            h.segments(), h.segmentBytes(), h.changes(), h.forgotten(), h.ahead(),
                            h.nextSegmentSequence(), crc(device, at + 1, h.bodyBytes()));
                    write(device, at, resealed.encode());
                }
                return "the delta's body at block " + lba + " byte " + byteAt + (reseal ? ", resealed" : "");
            }
        }
    }

    /** Damages checkpoint area {@code area} of {@code device} one random way; what was done, for messages. */
    private static String damage(MemoryDevice device, int area, SplittableRandom random) throws Exception {
        ByteBuffer header = block(device, AREAS.start(area));
        CheckpointHeader h = CheckpointHeader.decode(header.duplicate(), AREAS.bodyCapacityBytes(), "area");
        long bodyBlocks = (h.bodyBytes() + BlockDevice.BLOCK_SIZE - 1) / BlockDevice.BLOCK_SIZE;
        switch (random.nextInt(4)) {
            case 0 -> {
                int at = random.nextInt(BlockDevice.BLOCK_SIZE);
                header.put(at, (byte) (header.get(at) ^ (1 << random.nextInt(8))));
                write(device, AREAS.start(area), header);
                return "a bit of area " + area + "'s header at " + at;
            }
            case 1 -> {
                long value = switch (random.nextInt(5)) {
                    case 0 -> -1;
                    case 1 -> Integer.MAX_VALUE;
                    case 2 -> Long.MAX_VALUE;
                    case 3 -> 0;
                    default -> random.nextLong(1 << 20);
                };
                int field = random.nextInt(8);
                write(device, AREAS.start(area), withField(h, field, value).encode());
                return "area " + area + "'s header field " + field + " set to " + value + ", resealed";
            }
            default -> {
                long lba = AREAS.start(area) + 1 + random.nextLong(Math.max(1, bodyBlocks));
                ByteBuffer body = block(device, lba);
                int at = random.nextInt(BlockDevice.BLOCK_SIZE - 8);
                body.order(ByteOrder.LITTLE_ENDIAN).putInt(at, random.nextInt());
                write(device, lba, body);
                boolean reseal = random.nextBoolean();
                if (reseal) {
                    CheckpointHeader resealed = new CheckpointHeader(h.instance(), h.spaceIndex(), h.sequence(),
                            h.timestampMillis(), h.nextFileId(), h.fileCount(), h.fileTableBytes(), h.segments(),
                            h.segmentBytes(), h.buckets(), h.entryCount(), h.nextSegmentSequence(),
                            bodyCrc(device, area, h.bodyBytes()), h.exactCopy());
                    write(device, AREAS.start(area), resealed.encode());
                }
                return "area " + area + "'s body at block " + lba + " byte " + at + (reseal ? ", resealed" : "");
            }
        }
    }

    /** {@code h} with one of its counts or ids replaced by {@code value} (cut to an int where the field is one). */
    private static CheckpointHeader withField(CheckpointHeader h, int field, long value) {
        int asInt = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, value));
        return new CheckpointHeader(h.instance(), h.spaceIndex(),
                field == 0 ? value : h.sequence(), h.timestampMillis(),
                field == 1 ? asInt : h.nextFileId(),
                field == 2 ? asInt : h.fileCount(),
                field == 3 ? value : h.fileTableBytes(),
                field == 4 ? asInt : h.segments(),
                field == 5 ? asInt : h.segmentBytes(),
                field == 6 ? value : h.buckets(),
                field == 7 ? value : h.entryCount(),
                h.nextSegmentSequence(), h.bodyCrc(), h.exactCopy());
    }

    private static int bodyCrc(MemoryDevice device, int area, long bodyBytes) throws Exception {
        return crc(device, AREAS.start(area) + 1, bodyBytes);
    }

    private static int crc(MemoryDevice device, long firstBlock, long bodyBytes) throws Exception {
        CRC32C crc = new CRC32C();
        long left = bodyBytes;
        for (long lba = firstBlock; left > 0; lba++) {
            ByteBuffer piece = block(device, lba);
            piece.limit((int) Math.min(left, BlockDevice.BLOCK_SIZE));
            crc.update(piece);
            left -= BlockDevice.BLOCK_SIZE;
        }
        return (int) crc.getValue();
    }

    private static ByteBuffer block(MemoryDevice device, long lba) throws Exception {
        ByteBuffer block = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE);
        device.read(lba, block).get();
        return block.clear();
    }

    private static void write(MemoryDevice device, long lba, ByteBuffer block) throws Exception {
        device.write(lba, block.clear()).get();
    }
}

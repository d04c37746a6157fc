package io.flashchunk.cache.engine;

import static io.flashchunk.cache.engine.EngineFixture.INSTANCE;
import static io.flashchunk.cache.engine.EngineFixture.NO_FILES;
import static io.flashchunk.cache.engine.EngineFixture.SEGMENT_BYTES;
import static io.flashchunk.cache.engine.EngineFixture.chunk;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static io.flashchunk.cache.engine.EngineFixture.readAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.checkpoint.Checkpointer;
import io.flashchunk.cache.checkpoint.Recovery;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.format.DeviceLayout;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.format.Superblock;
import io.flashchunk.cache.read.FlashReadGate;
import io.flashchunk.cache.read.FlashReadPolicy;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.testing.Scratch;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Devices larger than 64-byte sectors address (4 TiB), on sparse files read and written with
 * O_DIRECT: their records align to larger sectors, so that addresses reach the whole device.
 */
class WholeDriveTest {
    private static final long TIB = 1L << 40;

    /**
     * Segments past 4 TiB, with the 128-byte sectors a device of up to 8 TiB gets: chunks written
     * there, read back, reclaimed and reinserted, and brought back by a restart from the checkpoint,
     * every one its own bytes.
     */
    @Test
    void recordsPast4TiBAreWrittenReadReclaimedAndRecovered() throws Exception {
        int segments = 6;
        long firstByte = 4 * TIB + (1 << 20);
        Path file = Scratch.file("past-4tib", firstByte + (long) segments * SEGMENT_BYTES);
        try (BlockDevice device = BlockDevices.open(DeviceSpec.of(file))) {
            SegmentLayout layout = new SegmentLayout(firstByte, SEGMENT_BYTES, segments, 128);
            EngineFixture before = EngineFixture.laidOut(layout, device);
            Checkpointer checkpointer = before.checkpointer(INSTANCE);
            int n = 10 * (SEGMENT_BYTES / 16_512); // more than the segments hold: reclaims
            for (int i = 0; i < n; i++) {
                if (!before.segmentWriter.append(key(i), chunk(key(i)))) {
                    checkpointer.checkpoint(NO_FILES);
                    assertTrue(before.segmentWriter.append(key(i), chunk(key(i))), "chunk " + i + " after a checkpoint");
                }
            }
            before.segmentWriter.flush();
            assertTrue(before.segmentWriter.reclaimed() > 0, "segments were reclaimed");
            int cached = 0;
            for (int i = 0; i < n; i++) {
                long address = before.index.find(key(i));
                if (address == RecordAddress.NONE) {
                    continue;
                }
                cached++;
                assertTrue(layout.byteOffset(address) > 4 * TIB, "chunk " + i + " at " + layout.byteOffset(address));
                assertTrue(RecordAddress.sector(address) > RecordAddress.MAX_SECTOR / 2,
                        "an address 64-byte sectors could not hold");
                ByteBuffer read = before.read(key(i));
                assertEquals(chunk(key(i)), read, "chunk " + i);
            }
            assertTrue(cached >= 4 * (SEGMENT_BYTES / 16_512), cached + " cached");
            assertEquals(0, before.mismatches);
            checkpointer.checkpoint(NO_FILES);
            // What the checkpoint names: the chunks in durable segments (a doomed one's are served until it is reused).
            long entries = 0;
            for (int i = 0; i < n; i++) {
                long address = before.index.find(key(i));
                entries += address != RecordAddress.NONE && before.table.state(layout.index(address)) == SegmentState.DURABLE
                        ? 1 : 0;
            }

            EngineFixture after = EngineFixture.laidOut(layout, device);
            Recovery.Outcome outcome = after.recover(INSTANCE);
            assertEquals(entries, outcome.restoredEntries(), outcome.toString());
            int hits = 0;
            for (int i = 0; i < n; i++) {
                ByteBuffer read = after.read(key(i));
                if (read != null) {
                    assertEquals(chunk(key(i)), read, "chunk " + i + " after the restart");
                    hits++;
                }
            }
            assertEquals(entries, hits);
            assertEquals(0, after.mismatches);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * The engine formats a 4.5 TiB device with 128-byte sectors (a version 5 superblock naming them),
     * caches in it, and comes back warm from it after a close.
     */
    @Test
    void aDeviceOver4TiBIsFormattedWithLargerSectorsAndComesBackWarm() throws Exception {
        Path file = Scratch.file("over-4tib", 4 * TIB + TIB / 2);
        try (BlockDevice device = BlockDevices.open(DeviceSpec.of(file))) {
            CacheEngine engine = open(device);
            assertTrue(engine.start().formatted());
            ByteBuffer block0 = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE);
            device.read(0, block0).get();
            assertEquals(5, block0.duplicate().order(ByteOrder.LITTLE_ENDIAN).getInt(8), "superblock version");
            Superblock superblock = Superblock.decode(block0, file.toString());
            assertEquals(128, superblock.layout().sectorBytes());
            assertFalse(superblock.layout().cutShort(), "all of it");
            long lastSegmentEnd = superblock.layout().segmentLayout().startByte(superblock.layout().segments());
            assertTrue(lastSegmentEnd > 4 * TIB + TIB / 2 - (1L << 30), "segments to " + lastSegmentEnd);
            assertEquals(superblock.layout(), cachesAndComesBackWarm(engine, device));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * A 4.5 TiB device that a release before 2026-11-28 formatted (64-byte sectors, its first 4 TiB):
     * an upgrade recovers it warm in that layout, and it goes on caching in it.
     */
    @Test
    void aDeviceOver4TiBAnEarlierReleaseFormattedIsKeptWarm() throws Exception {
        long bytes = 4 * TIB + TIB / 2;
        Path file = Scratch.file("earlier-4tib", bytes);
        try (BlockDevice device = BlockDevices.open(DeviceSpec.of(file))) {
            long blocks = bytes / BlockDevice.BLOCK_SIZE;
            // 1.0.0's DeviceLayout.forDevice (af4a0c1) for this device and 16 MiB segments, as it printed it.
            DeviceLayout earlier = new DeviceLayout(blocks, 16 << 20, 3_131_975, 260_614, 64);
            // What the earlier release's format left: its superblock, and empty checkpoint areas (a sparse file's zeros).
            device.write(0, new Superblock(UUID.randomUUID(), 0, 1, earlier, 1L << 36).encode()).get();
            CacheEngine engine = open(device);
            assertFalse(engine.start().formatted(), engine.start().why());
            assertEquals(earlier, engine.start().layouts().get(0));
            assertEquals(earlier, cachesAndComesBackWarm(engine, device));
            ByteBuffer block0 = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE);
            device.read(0, block0).get();
            assertEquals(4, block0.order(ByteOrder.LITTLE_ENDIAN).getInt(8), "still the version earlier releases read");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * Offers chunks to {@code engine} and reads them back, closes it, and opens {@code device} again:
     * recovered, not formatted, every chunk back. Returns the layout the second engine runs.
     */
    private static DeviceLayout cachesAndComesBackWarm(CacheEngine engine, BlockDevice device) throws Exception {
        int n = 300;
        for (int i = 0; i < n; i++) {
            assertTrue(engine.offer(key(i), chunk(key(i))), "chunk " + i);
        }
        assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
        assertEquals(n, readAll(engine, n));
        engine.close();
        CacheEngine again = open(device);
        try {
            assertFalse(again.start().formatted(), again.start().why());
            assertEquals(n, again.recovered().restoredEntries());
            assertEquals(n, readAll(again, n));
            return again.start().layouts().get(0);
        } finally {
            again.close();
        }
    }

    /**
     * 16 MiB segments; an index sized for one chunk a segment (the test caches a few hundred). Hits
     * wait as long as the device's other operations (5 s): a read of a busy machine's sparse file given
     * up after the default 200 ms would be a miss the test takes for a lost chunk.
     */
    private static CacheEngine open(BlockDevice device) throws Exception {
        int segment = 16 << 20;
        return CacheEngine.open(List.of(new StorageDriver(device, 2, TimeUnit.SECONDS.toNanos(5))),
                new CacheEngine.Settings(segment, segment, 0.1, 1, 8, 20, 8 << 20, 100_000, 60_000, false, List.of()),
                NO_FILES, () -> 1_000, System::nanoTime,
                new FlashReadPolicy(false, TimeUnit.SECONDS.toNanos(5), FlashReadGate.OPEN, System::nanoTime));
    }
}

package io.flashchunk.cache;

import static io.flashchunk.cache.FlashChunkCacheTest.await;
import static io.flashchunk.cache.FlashChunkCacheTest.file;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.cache.index.ChunkEntry;
import io.flashchunk.cache.index.ChunkKeys;
import io.flashchunk.cache.index.ChunkLocation;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The paper's overflow read: a hit whose file's next chunk lies beside it on flash reads both with
 * one I/O; the next one is served when its reader asks, after the same checks as any hit.
 */
class OverflowReadTest {
    private static final long DEVICE_BYTES = 64L << 20;
    private static final int CHUNK = 65536;

    private static long deviceReads(FlashChunkCache cache) {
        return cache.spaces().space(0).driver().device().stats().readOps();
    }

    private static long location(FlashChunkCache cache, CachedFile file, long position) {
        return cache.index().peek(ChunkKeys.key(file.id(), position)).location();
    }

    /** A file whose first two chunks were put one after the other (as a partition's miss puts them), on flash. */
    private static CachedFile pairOnFlash(FlashChunkCache cache, String name, long seed) throws InterruptedException {
        CachedFile file = file(cache, name);
        long written = cache.stats().flashWrites();
        cache.put(file, 0, ChunkContent.buffer(seed, 0, CHUNK));
        cache.put(file, CHUNK, ChunkContent.buffer(seed, CHUNK, CHUNK));
        await("both chunks on flash", () -> cache.stats().flashWrites() == written + 2);
        return file;
    }

    private static boolean beside(long a, long b) {
        long blocks = CHUNK / 4096;
        return ChunkLocation.lba(b) == ChunkLocation.lba(a) + blocks || ChunkLocation.lba(a) == ChunkLocation.lba(b) + blocks;
    }

    @Test
    void aPartitionsTwoChunksAdmittedTogetherLieSideBySideAndOneReadServesBoth() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = pairOnFlash(cache, "pair", 1);
            assertTrue(beside(location(cache, file, 0), location(cache, file, CHUNK)), "placed side by side: lba "
                    + ChunkLocation.lba(location(cache, file, 0)) + " and " + ChunkLocation.lba(location(cache, file, CHUNK)));
            long reads = deviceReads(cache);

            CachedChunk first = cache.get(file, 0, true);
            assertNotNull(first);
            assertArrayEquals(ChunkContent.bytes(1, 0, CHUNK), ChunkContent.read(first));
            FollowingChunk follower = first.takeFollower();
            assertNotNull(follower, "the next chunk came along");
            assertEquals(CHUNK, follower.position());
            CachedChunk second = cache.claim(file, follower);
            assertNotNull(second);
            assertArrayEquals(ChunkContent.bytes(1, CHUNK, CHUNK), ChunkContent.read(second));
            first.release();
            second.release();

            assertEquals(reads + 1, deviceReads(cache), "one I/O for both chunks");
            CacheStats stats = cache.stats();
            assertEquals(2, stats.flashHits());
            assertEquals(1, stats.pairedReads());
            assertEquals(1, stats.followersServed());
            assertEquals(2L * CHUNK, stats.flashBytesRead());
        }
    }

    @Test
    void partitionsReadByConcurrentReadersStillPairUp() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            List<CachedFile> files = List.of(file(cache, "a"), file(cache, "b"), file(cache, "c"), file(cache, "d"));
            // Four readers' misses interleave: every file's first chunk, then every file's second.
            for (int round = 0; round < 2; round++) {
                for (int f = 0; f < files.size(); f++) {
                    cache.put(files.get(f), (long) round * CHUNK, ChunkContent.buffer(10 + f, (long) round * CHUNK, CHUNK));
                }
            }
            await("every chunk on flash", () -> cache.stats().flashWrites() == 8);
            for (CachedFile file : files) {
                assertTrue(beside(location(cache, file, 0), location(cache, file, CHUNK)),
                        "the chunks of " + file + " lie side by side");
            }
        }
    }

    @Test
    void withoutAskingAHitReadsItsChunkAlone() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = pairOnFlash(cache, "alone", 2);
            CachedChunk hit = cache.get(file, 0);
            assertNull(hit.takeFollower());
            hit.release();
            assertEquals(CHUNK, cache.stats().flashBytesRead());
        }
    }

    @Test
    void aFollowerInvalidatedBeforeItsReaderAsksIsNotServed() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = pairOnFlash(cache, "gone", 3);
            CachedChunk first = cache.get(file, 0, true);
            FollowingChunk follower = first.takeFollower();
            assertNotNull(follower);
            cache.invalidatePosition(file, CHUNK);
            assertNull(cache.claim(file, follower), "the chunk changed in its file after the read");
            follower.release(); // a second release does nothing
            first.release();
            assertEquals(0, cache.stats().followersServed());
        }
    }

    @Test
    void aFollowerWithCorruptBytesIsDroppedNeverServed() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = pairOnFlash(cache, "corrupt", 4);
            try (FileChannel channel = FileChannel.open(fixture.deviceFiles.get(0), StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap(new byte[] {7, 7, 7}),
                        ChunkLocation.lba(location(cache, file, CHUNK)) * 4096 + 999);
            }
            CachedChunk first = cache.get(file, 0, true);
            assertArrayEquals(ChunkContent.bytes(4, 0, CHUNK), ChunkContent.read(first), "the first chunk is intact");
            assertNull(cache.claim(file, first.takeFollower()));
            first.release();
            assertEquals(1, cache.stats().checksumErrors());
            assertNull(cache.index().peek(ChunkKeys.key(file.id(), CHUNK)), "the corrupt entry is dropped");
        }
    }

    /**
     * Chunks of several files put in a random order, some together and some not: whenever a chunk's
     * next one lies beside it, a hit brings it along, and otherwise not; every byte served is right.
     */
    @Test
    void aFollowerComesExactlyWhenTheNextChunkLiesBesideAndIsAlwaysRight() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            Random random = new Random(42);
            List<CachedFile> files = new ArrayList<>();
            List<long[]> puts = new ArrayList<>();
            for (int f = 0; f < 4; f++) {
                files.add(file(cache, "mixed-" + f));
                for (int c = 0; c < 24; c++) {
                    puts.add(new long[] {f, (long) c * CHUNK});
                }
            }
            Collections.shuffle(puts, random);
            // Some chunks arrive right after their predecessor, as a partition read on a miss makes them.
            for (int i = 0; i < puts.size(); i++) {
                long[] put = puts.get(i);
                cache.put(files.get((int) put[0]), put[1], ChunkContent.buffer(put[0], put[1], CHUNK));
                if (random.nextBoolean() && put[1] + CHUNK < 24L * CHUNK) {
                    cache.put(files.get((int) put[0]), put[1] + CHUNK, ChunkContent.buffer(put[0], put[1] + CHUNK, CHUNK));
                }
            }
            await("every chunk on flash", () -> cache.stats().queuedChunks() == 0 && cache.entries() == puts.size());
            int paired = 0;
            for (int f = 0; f < files.size(); f++) {
                CachedFile file = files.get(f);
                for (int c = 0; c + 1 < 24; c++) {
                    long position = (long) c * CHUNK;
                    boolean besideNext = beside(location(cache, file, position), location(cache, file, position + CHUNK));
                    CachedChunk hit = cache.get(file, position, true);
                    assertArrayEquals(ChunkContent.bytes(f, position, CHUNK), ChunkContent.read(hit));
                    FollowingChunk follower = hit.takeFollower();
                    assertEquals(besideNext, follower != null, "chunk " + c + " of file " + f);
                    if (follower != null) {
                        paired++;
                        CachedChunk next = cache.claim(file, follower);
                        assertArrayEquals(ChunkContent.bytes(f, position + CHUNK, CHUNK), ChunkContent.read(next));
                        next.release();
                    }
                    hit.release();
                }
            }
            assertTrue(paired > 0, "some chunks lie beside their next one");
            assertEquals(paired, cache.stats().followersServed());
            assertEquals(0, cache.stats().checksumErrors());
        }
    }

    @Test
    void aChunkAdmittedAfterItsNeighbourIsPlacedBesideItWhenTheRunIsFree() throws Exception {
        try (CacheFixture fixture = CacheFixture.of(DEVICE_BYTES, c -> { })) {
            FlashChunkCache cache = fixture.cache;
            CachedFile file = file(cache, "later");
            cache.put(file, CHUNK, ChunkContent.buffer(5, CHUNK, CHUNK));
            await("the first chunk on flash", () -> cache.stats().flashWrites() == 1);
            ChunkEntry first = cache.index().peek(ChunkKeys.key(file.id(), CHUNK));
            // Its predecessor comes later, alone: it goes right before it if that run is free.
            cache.put(file, 0, ChunkContent.buffer(5, 0, CHUNK));
            await("the second chunk on flash", () -> cache.stats().flashWrites() == 2);
            assertTrue(beside(first.location(), location(cache, file, 0)));
        }
    }
}

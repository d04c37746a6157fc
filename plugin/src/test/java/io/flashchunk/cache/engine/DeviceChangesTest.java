package io.flashchunk.cache.engine;

import static io.flashchunk.cache.engine.EngineFixture.CHUNK;
import static io.flashchunk.cache.engine.EngineFixture.NO_FILES;
import static io.flashchunk.cache.engine.EngineFixture.chunk;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static io.flashchunk.cache.engine.EngineFixture.readAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.cache.space.DeviceStart;
import io.flashchunk.testing.MemoryDevice;
import io.flashchunk.testing.PowerCutDevice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The engine over a list of devices that changed between runs: each device that stays keeps its
 * chunks wherever it now stands, one added joins empty, one removed takes only its own chunks.
 */
class DeviceChangesTest {
    private static final int SEGMENT = 256 << 10;

    private static MemoryDevice device(String name) {
        return MemoryDevice.blank(name, (4L << 20) / BlockDevice.BLOCK_SIZE, 8);
    }

    private static CacheEngine open(MemoryDevice... devices) throws Exception {
        return open(1_000, devices);
    }

    /** The engine started when the wall clock reads {@code clockMillis}. */
    private static CacheEngine open(long clockMillis, MemoryDevice... devices) throws Exception {
        return CacheEngine.open(drivers(devices), new CacheEngine.Settings(SEGMENT, CHUNK, 0.1, 1, 8, 20, 8 << 20, 4,
                60_000, false, List.of()), NO_FILES, () -> clockMillis);
    }

    private static List<StorageDriver> drivers(io.flashchunk.device.BlockDevice... devices) {
        return Arrays.stream(devices).map(d -> new StorageDriver(d, 2, TimeUnit.SECONDS.toNanos(5))).toList();
    }

    /** The device each of the first {@code n} keys is cached on, by name. */
    private static Map<Integer, String> devicesOf(CacheEngine engine, MemoryDevice[] devices, int n) {
        Map<Integer, String> where = new HashMap<>();
        for (int i = 0; i < n; i++) {
            long address = engine.index().find(key(i));
            if (address != RecordAddress.NONE) {
                where.put(i, devices[RecordAddress.space(address)].path());
            }
        }
        return where;
    }

    /** Copies of the devices as they are now: what a crash leaves. */
    private static MemoryDevice[] crashImages(MemoryDevice... devices) {
        return Arrays.stream(devices).map(d -> new MemoryDevice(d.path(), d.image(), 8)).toArray(MemoryDevice[]::new);
    }

    private static void offer(CacheEngine engine, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            assertTrue(engine.offer(key(i), chunk(key(i))), "chunk " + i + ": flash has room, all are admitted");
        }
        assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
    }

    @Test
    void everyDeviceThatStaysKeepsItsChunksWhereverItNowStands() throws Exception {
        MemoryDevice a = device("a");
        MemoryDevice b = device("b");
        CacheEngine first = open(a, b);
        offer(first, 0, 100);
        assertTrue(first.checkpoint(10, TimeUnit.SECONDS), "a full checkpoint, then deltas after it");
        offer(first, 100, 200);
        assertTrue(first.awaitCheckpointsSettled(10, TimeUnit.SECONDS));
        Map<Integer, String> placed = devicesOf(first, new MemoryDevice[] {a, b}, 200);
        assertEquals(200, placed.size());
        assertTrue(placed.containsValue("a") && placed.containsValue("b"), "both devices hold chunks: " + placed);
        // A crash, so that what the next run recovers is the deltas after the full checkpoint (a close writes a full one).
        MemoryDevice[] before = crashImages(a, b);
        first.close();

        // What a restart with the devices unchanged brings back (a crash loses what no checkpoint named yet).
        MemoryDevice[] unchanged = crashImages(before);
        CacheEngine control = open(unchanged);
        Map<Integer, String> kept = devicesOf(control, unchanged, 200);
        assertTrue(kept.size() > 100 && control.recovered().restoredEntries() == kept.size(), kept.toString());
        control.close();

        // b first, a device added, a last: the same chunks come back, each on its device.
        MemoryDevice c = device("c");
        MemoryDevice[] moved = {before[1], c, before[0]};
        CacheEngine reordered = open(moved);
        assertFalse(reordered.start().formatted(), reordered.start().why());
        assertEquals(kept.size(), reordered.recovered().restoredEntries(), "every chunk of a and b");
        assertTrue(reordered.recovered().loadedDeltas()[0] > 0 && reordered.recovered().loadedDeltas()[2] > 0,
                "b and a came back from deltas after their full checkpoints: "
                        + Arrays.toString(reordered.recovered().loadedDeltas()));
        assertEquals(kept.size(), readAll(reordered, 200), "each with its bytes");
        assertEquals(kept, devicesOf(reordered, moved, 200), "each on the device it was written to");
        assertTrue(kept.entrySet().stream().allMatch(e -> placed.get(e.getKey()).equals(e.getValue())));
        // A crash now: the superblocks name the new places, the checkpoints still the old ones.
        MemoryDevice[] crashed = crashImages(moved);
        reordered.close();

        CacheEngine afterCrash = open(crashed);
        assertEquals(kept.size(), afterCrash.recovered().restoredEntries(), afterCrash.recovered().problems().toString());
        assertEquals(kept, devicesOf(afterCrash, crashed, 200));
        assertEquals(kept.size(), readAll(afterCrash, 200));
        offer(afterCrash, 200, 300);
        Map<Integer, String> all = devicesOf(afterCrash, crashed, 300);
        assertEquals(kept.size() + 100, all.size());
        assertTrue(all.containsValue("c"), "the device added takes new chunks: " + all);
        afterCrash.close();

        CacheEngine again = open(crashed);
        assertTrue(again.recovered().problems().isEmpty(), again.recovered().problems().toString());
        assertEquals(all.size(), readAll(again, 300));
        again.close();

        // b removed: its chunks are misses, the others' stay.
        long onB = all.values().stream().filter("b"::equals).count();
        CacheEngine without = open(crashed[1], crashed[2]);
        assertFalse(without.start().formatted(), without.start().why());
        assertEquals(all.size() - onB, without.recovered().restoredEntries());
        assertEquals(all.size() - onB, readAll(without, 300));
        List<Integer> missed = new ArrayList<>();
        for (int i : all.keySet()) {
            if (without.index().find(key(i)) == RecordAddress.NONE) {
                missed.add(i);
            }
        }
        assertTrue(onB > 0 && missed.stream().allMatch(i -> "b".equals(all.get(i))), "only b's chunks are gone: " + missed);
        without.close();
    }

    @Test
    void aDeviceThatMissedARunComesBackEmptySoNoInvalidatedChunkReturns() throws Exception {
        MemoryDevice a = device("a");
        MemoryDevice d = device("d");
        CacheEngine both = open(a, d);
        offer(both, 0, 200);
        Map<Integer, String> placed = devicesOf(both, new MemoryDevice[] {a, d}, 200);
        assertTrue(placed.containsValue("d"), placed.toString());
        both.close();

        CacheEngine alone = open(a);
        for (int i = 0; i < 200; i++) {
            alone.invalidate(key(i));
        }
        assertTrue(alone.awaitWritten(10, TimeUnit.SECONDS));
        assertEquals(0, alone.entries());
        alone.close();

        CacheEngine again = open(a, d);
        assertFalse(again.start().formatted(), again.start().why());
        assertEquals(-1, again.start().formerSpace(1), "d missed a run: formatted into the cache");
        assertEquals(0, again.recovered().restoredEntries());
        assertEquals(0, readAll(again, 200), "no invalidated chunk comes back from d");
        again.close();
    }

    @Test
    void aDeviceAndItsCopyListedTogetherAreBothFormattedSoNoChunkIsRestoredTwice() throws Exception {
        MemoryDevice a = device("a");
        MemoryDevice b = device("b");
        CacheEngine first = open(a, b);
        offer(first, 0, 200);
        Map<Integer, String> placed = devicesOf(first, new MemoryDevice[] {a, b}, 200);
        first.close();
        MemoryDevice copy = new MemoryDevice("copy", a.image(), 8);
        CacheEngine engine = open(copy, b, a);
        assertEquals(List.of(-1, 1, -1), List.of(engine.start().formerSpace(0), engine.start().formerSpace(1),
                engine.start().formerSpace(2)), "which of a and its copy is the original is unknown: both join empty");
        long onB = placed.values().stream().filter("b"::equals).count();
        assertTrue(onB > 0 && onB < 200, placed.toString());
        assertEquals(onB, engine.recovered().restoredEntries());
        for (int i = 0; i < 100; i++) {
            engine.invalidate(key(i));
        }
        assertTrue(engine.awaitWritten(10, TimeUnit.SECONDS));
        long keptAfter = placed.entrySet().stream().filter(e -> e.getKey() >= 100 && "b".equals(e.getValue())).count();
        assertEquals(keptAfter, readAll(engine, 200), "an invalidated chunk is gone, not served from a second copy");
        engine.close();
    }

    @Test
    void aCopyOfAnEarlierStateOfADeviceListedInItsPlaceComesBackEmpty() throws Exception {
        MemoryDevice a = device("a");
        MemoryDevice b = device("b");
        CacheEngine first = open(a, b);
        offer(first, 0, 200);
        assertTrue(devicesOf(first, new MemoryDevice[] {a, b}, 200).containsValue("a"));
        first.close();
        MemoryDevice copy = new MemoryDevice("a", a.image(), 8); // a as the first run left it

        CacheEngine second = open(a, b); // the same devices: the same run goes on
        assertEquals(200, second.recovered().restoredEntries());
        for (int i = 0; i < 200; i++) {
            second.invalidate(key(i));
        }
        assertTrue(second.awaitWritten(10, TimeUnit.SECONDS));
        assertEquals(0, second.entries());
        second.close();

        CacheEngine third = open(copy, b);
        assertEquals(List.of(-1, 1), List.of(third.start().formerSpace(0), third.start().formerSpace(1)),
                "the copy missed a start of the run: it joins empty");
        assertEquals(0, third.recovered().restoredEntries());
        assertEquals(0, readAll(third, 200), "no chunk invalidated after the copy was taken comes back from it");
        third.close();
    }

    @Test
    void copiesOfEveryDeviceRunApartNeverBringBackWhatTheOthersInvalidated() throws Exception {
        MemoryDevice a = device("a");
        MemoryDevice b = device("b");
        CacheEngine first = open(10_000_000, a, b);
        offer(first, 0, 200);
        first.close();
        MemoryDevice a2 = new MemoryDevice("a2", a.image(), 8);
        MemoryDevice b2 = new MemoryDevice("b2", b.image(), 8);
        CacheEngine here = open(9_000_000, a, b); // the clock stepped back: both go on from the same limit
        assertEquals(200, readAll(here, 200));
        for (int i = 0; i < 200; i++) {
            here.invalidate(key(i));
        }
        assertTrue(here.awaitWritten(10, TimeUnit.SECONDS));
        here.close();
        open(9_000_001, a2, b2).close(); // the copies, started elsewhere
        // Listed together, only the devices of the start that ran last (the copies') keep their chunks:
        // none invalidated in that history, and none of a and b's beside them.
        for (MemoryDevice[] listed : new MemoryDevice[][] {{a, b2}, {a2, b}}) {
            CacheEngine mixed = open(9_000_002, listed);
            int copy = listed[0] == a2 ? 0 : 1;
            assertEquals(copy == 0 ? List.of(0, -1) : List.of(-1, 1),
                    List.of(mixed.start().formerSpace(0), mixed.start().formerSpace(1)), mixed.start().toString());
            Map<Integer, String> kept = devicesOf(mixed, listed, 200);
            assertEquals(kept.size(), readAll(mixed, 200));
            assertTrue(!kept.isEmpty() && kept.values().stream().allMatch(listed[copy].path()::equals), kept.toString());
            mixed.close();
        }
    }

    @Test
    void aPowerCutWhileADeviceIsFormattedIntoTheCacheNeverBringsBackItsOldCheckpoints() throws Exception {
        MemoryDevice a = device("a");
        MemoryDevice d = device("d");
        CacheEngine both = open(10_000_000, a, d);
        offer(both, 0, 200);
        both.close();
        CacheEngine alone = open(10_100_000, a);
        for (int i = 0; i < 200; i++) {
            alone.invalidate(key(i));
        }
        assertTrue(alone.awaitWritten(10, TimeUnit.SECONDS));
        alone.close();
        // d is formatted into the cache's new run: at every write or flush of that start, a power cut.
        java.util.concurrent.atomic.AtomicLong timeline = new java.util.concurrent.atomic.AtomicLong();
        PowerCutDevice pa = PowerCutDevice.of("a", a.image(), 8, timeline);
        PowerCutDevice pd = PowerCutDevice.of("d", d.image(), 8, timeline);
        DeviceStart.Outcome start = DeviceStart.open(drivers(pa, pd), SEGMENT, false, List.of(), () -> 10_200_000L);
        assertEquals(-1, start.formerSpace(1));
        java.util.SplittableRandom random = new java.util.SplittableRandom(1);
        int checked = 0;
        for (long t = 0; t <= timeline.get(); t++) {
            for (int k = 0; k < 8; k++) {
                MemoryDevice cutA = new MemoryDevice("a", pa.crashImage(pa.cutAt(t), random), 8);
                MemoryDevice cutD = new MemoryDevice("d", pd.crashImage(pd.cutAt(t), random), 8);
                CacheEngine next = open(10_300_000, cutA, cutD);
                int served = readAll(next, 200);
                String what = next.start() + " " + next.recovered();
                next.close();
                assertEquals(0, served, "cut at " + t + ": chunks invalidated while d was away came back: " + what);
                checked++;
            }
        }
        assertTrue(checked > 8, "cuts checked: " + checked);
    }
}

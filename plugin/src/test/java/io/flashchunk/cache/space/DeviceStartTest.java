package io.flashchunk.cache.space;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.format.DeviceLayout;
import io.flashchunk.cache.format.Superblock;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.FaultyDevice;
import io.flashchunk.testing.MdSuperblock;
import io.flashchunk.testing.MemoryDevice;
import io.flashchunk.testing.PerChunkSuperblock;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DeviceStartTest {
    private static final int SEGMENT = 256 << 10;
    private static final long BLOCKS = (8L << 20) / BlockDevice.BLOCK_SIZE;

    private static StorageDriver driver(MemoryDevice device) {
        return new StorageDriver(device, 2, TimeUnit.SECONDS.toNanos(5));
    }

    /** The wall clock the starts read: a second later at each. */
    private final java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1_000);

    private DeviceStart.Outcome open(boolean strict, List<Boolean> force, MemoryDevice... devices)
            throws Exception {
        return DeviceStart.open(java.util.Arrays.stream(devices).map(DeviceStartTest::driver).toList(), SEGMENT,
                strict, force, () -> clock.addAndGet(1_000));
    }

    /** A start of the cache as the engine makes it: the devices decided, then this start's sequences reserved. */
    private DeviceStart.Outcome start(MemoryDevice... devices) throws Exception {
        DeviceStart.Outcome outcome = open(false, List.of(), devices);
        DeviceStart.reserveSequences(Arrays.stream(devices).map(DeviceStartTest::driver).toList(), outcome,
                outcome.sequenceFloor());
        return outcome;
    }

    private static void writeBlock0(MemoryDevice device, ByteBuffer block) throws Exception {
        device.write(0, block).get();
    }

    @Test
    void formatsBlankDevicesThenFindsThemAgain() throws Exception {
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        MemoryDevice b = MemoryDevice.blank("b", BLOCKS, 8);
        DeviceStart.Outcome first = open(false, List.of(), a, b);
        assertTrue(first.formatted());
        assertEquals("blank devices", first.why());
        DeviceStart.Outcome again = open(true, List.of(), a, b);
        assertFalse(again.formatted());
        assertEquals(first.instance(), again.instance());
        assertEquals(DeviceLayout.forDevice(BLOCKS, SEGMENT), again.layouts().get(1));
    }

    @Test
    void reformatsADeviceOfThePerChunkEngineEvenInStrictMode() throws Exception {
        MemoryDevice a = MemoryDevice.blank("/dev/old", BLOCKS, 8);
        writeBlock0(a, PerChunkSuperblock.block(UUID.randomUUID(), BLOCKS));
        DeviceStart.Outcome outcome = open(true, List.of(), a);
        assertTrue(outcome.formatted());
        assertTrue(outcome.why().contains("per-chunk engine") && outcome.why().contains("/dev/old"), outcome.why());
        assertFalse(open(true, List.of(), a).formatted(), "now it is the engine's");
    }

    @Test
    void neverFormatsAForeignDeviceUnlessForced() throws Exception {
        MemoryDevice a = MemoryDevice.blank("/dev/sdb", BLOCKS, 8);
        ByteBuffer ext4 = ByteBuffer.allocate(BlockDevice.BLOCK_SIZE);
        ext4.put(1080, (byte) 0x53).put(1081, (byte) 0xEF);
        writeBlock0(a, ext4);
        String refused = assertThrows(CacheRecoveryException.class, () -> open(false, List.of(), a)).getMessage();
        assertTrue(refused.contains("/dev/sdb holds an ext2/3/4 file system") && refused.contains("format: force"),
                refused);
        assertTrue(open(false, List.of(true), a).formatted());
    }

    @Test
    void aDeviceWhoseBlockZeroIsBlankButHoldsAnMdSuperblockAt4KibIsNeverFormattedUnlessForced() throws Exception {
        // No such path: libblkid cannot look, so the own check decides (first and last MiB all zeros).
        MemoryDevice a = MemoryDevice.blank("/dev/md-member", BLOCKS, 8);
        ByteBuffer block = ByteBuffer.allocate(BlockDevice.BLOCK_SIZE);
        block.put(MdSuperblock.block(UUID.randomUUID(), 0, BLOCKS * BlockDevice.BLOCK_SIZE)).clear();
        a.write(MdSuperblock.OFFSET / BlockDevice.BLOCK_SIZE, block).get();
        for (boolean strict : new boolean[] {false, true}) {
            String refused = assertThrows(CacheRecoveryException.class, () -> open(strict, List.of(), a)).getMessage();
            assertTrue(refused.contains("will not format /dev/md-member holds data at byte 4096 though block 0 is all zeros")
                    && refused.contains("own check") && refused.contains("format: force"), refused);
        }
        assertTrue(open(true, List.of(true), a).formatted());
        assertFalse(open(true, List.of(), a).formatted(), "now it is the cache's");
    }

    @Test
    void devicesReorderedAddedOrRemovedKeepTheirChunksEvenInStrictMode() throws Exception {
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        MemoryDevice b = MemoryDevice.blank("b", BLOCKS, 8);
        UUID instance = open(false, List.of(), a, b).instance();
        DeviceStart.Outcome swapped = open(true, List.of(), b, a);
        assertFalse(swapped.formatted(), swapped.why());
        assertEquals(instance, swapped.instance());
        assertEquals(List.of(1, 0), List.of(swapped.formerSpace(0), swapped.formerSpace(1)), "where each was before");

        MemoryDevice c = MemoryDevice.blank("c", BLOCKS, 8);
        // The swap was a start of its own: its run holds b as space 0 and a as 1.
        DeviceStart.Outcome added = open(true, List.of(), b, c, a);
        assertFalse(added.formatted(), added.why());
        assertEquals(instance, added.instance());
        assertEquals(List.of(0, -1, 1), List.of(added.formerSpace(0), added.formerSpace(1), added.formerSpace(2)));
        assertFalse(added.stamp().runId() == swapped.stamp().runId(), "a changed set is a new run");
        assertEquals("recovered; formatted c", added.why());
        Superblock onC = Superblock.decode(DeviceStart.readBlock(driver(c), 0), "c");
        assertEquals(instance, onC.instance(), "the device added is the cache's now");

        DeviceStart.Outcome removed = open(true, List.of(), c, a);
        assertFalse(removed.formatted(), removed.why());
        assertEquals(List.of(1, 2), List.of(removed.formerSpace(0), removed.formerSpace(1)));
        DeviceStart.Outcome again = open(true, List.of(), c, a);
        assertEquals(removed.stamp().runId(), again.stamp().runId(), "an unchanged set goes on with its run");
    }

    @Test
    void aDeviceThatMissedARunOfTheCacheIsFormattedOrInStrictModeRefused() throws Exception {
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        MemoryDevice d = MemoryDevice.blank("d", BLOCKS, 8);
        UUID instance = open(false, List.of(), a, d).instance();
        open(false, List.of(), a); // a run without d
        String refused = assertThrows(CacheRecoveryException.class, () -> open(true, List.of(), a, d)).getMessage();
        assertTrue(refused.contains("d holds this cache as it was before a run it was not part of"), refused);
        DeviceStart.Outcome back = open(false, List.of(), a, d);
        assertEquals(instance, back.instance());
        assertEquals(List.of(0, -1), List.of(back.formerSpace(0), back.formerSpace(1)), "d joins empty");
    }

    @Test
    void ofDevicesRunApartTheRunThatStartedLastIsKeptWhicheverIsListedFirst() throws Exception {
        for (boolean aFirst : new boolean[] {true, false}) {
            MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
            MemoryDevice d = MemoryDevice.blank("d", BLOCKS, 8);
            start(a, d);
            // each run on its own: each gives out file ids from where they parted
            UUID instance = start(aFirst ? a : d).instance();
            long last = start(aFirst ? d : a).stamp().runId();
            String refused = assertThrows(CacheRecoveryException.class, () -> open(true, List.of(), a, d)).getMessage();
            assertTrue(refused.contains((aFirst ? "a" : "d") + " holds this cache as it was before a run it was not part of"),
                    refused);
            DeviceStart.Outcome back = open(false, List.of(), a, d);
            assertEquals(instance, back.instance());
            assertEquals(aFirst ? List.of(-1, 0) : List.of(0, -1), List.of(back.formerSpace(0), back.formerSpace(1)),
                    "the run that started last keeps its device, the other joins it empty: " + back);
            assertFalse(back.stamp().runId() == last, "a changed set is a new run");
        }
    }

    @Test
    void runsApartThatStartedAtTheSameClockAreBothFormattedOrInStrictModeRefused() throws Exception {
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        MemoryDevice d = MemoryDevice.blank("d", BLOCKS, 8);
        start(a, d);
        long now = clock.get();
        for (MemoryDevice alone : new MemoryDevice[] {a, d}) {
            // the two halves on two hosts, whose clocks read the same: their limits tie
            clock.set(now);
            start(alone);
        }
        String refused = assertThrows(CacheRecoveryException.class, () -> open(true, List.of(), a, d)).getMessage();
        assertTrue(refused.contains("which of them ran last is unknown"), refused);
        assertTrue(open(false, List.of(), d, a).formatted(), "neither run is kept");
    }

    @Test
    void aDeviceThatMissedAStartOfItsRunIsFormattedButOneACrashLeftBehindIsKept() throws Exception {
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        MemoryDevice b = MemoryDevice.blank("b", BLOCKS, 8);
        start(a, b);
        MemoryDevice earlier = new MemoryDevice("b", b.image(), 8); // a copy of b as this start left it
        // The next start's reservation reaches a, then a crash before it reaches b: b is of the start
        // before, a unsettled.
        startCutAt(1, a, b);
        Superblock onA = Superblock.decode(DeviceStart.readBlock(driver(a), 0), "a");
        assertFalse(onA.stamp().settled());
        DeviceStart.Outcome afterCrash = open(true, List.of(), a, b);
        assertEquals(List.of(0, 1), List.of(afterCrash.formerSpace(0), afterCrash.formerSpace(1)),
                "b was left behind by a crash before any device of the start settled: kept");
        start(a, b); // a start that settles: from now on b's earlier state is a start behind
        String refused = assertThrows(CacheRecoveryException.class, () -> open(true, List.of(), a, earlier))
                .getMessage();
        assertTrue(refused.contains("b holds this cache as it was before a start it was not part of"), refused);
        DeviceStart.Outcome outcome = open(false, List.of(), a, earlier);
        assertEquals(List.of(0, -1), List.of(outcome.formerSpace(0), outcome.formerSpace(1)));
    }

    @Test
    void devicesARunIdlessReleaseWroteAreKeptOnlyWhereThatReleaseKeptThem() throws Exception {
        // A release before run ids wrote these (its superblocks have zeros after the checksummed part):
        // one cache run as a alone (space 0 of 1), and as b and c (0 and 1 of 2) apart from it.
        UUID instance = UUID.randomUUID();
        DeviceLayout layout = DeviceLayout.forDevice(BLOCKS, SEGMENT);
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        MemoryDevice b = MemoryDevice.blank("b", BLOCKS, 8);
        MemoryDevice c = MemoryDevice.blank("c", BLOCKS, 8);
        writeBlock0(a, asARunIdlessReleaseWrites(new Superblock(instance, 0, 1, layout, 3L << 36)));
        writeBlock0(b, asARunIdlessReleaseWrites(new Superblock(instance, 0, 2, layout, 3L << 36)));
        writeBlock0(c, asARunIdlessReleaseWrites(new Superblock(instance, 1, 2, layout, 3L << 36)));
        for (MemoryDevice[] listed : new MemoryDevice[][] {{a, c}, {c, b}, {b, c, a}}) {
            String refused = assertThrows(CacheRecoveryException.class, () -> open(true, List.of(), listed))
                    .getMessage();
            assertTrue(refused.contains("was written by a release before start stamps, and the devices' superblocks do not show"),
                    refused);
        }
        DeviceStart.Outcome asBefore = open(true, List.of(), b, c);
        assertEquals(instance, asBefore.instance());
        assertEquals(List.of(0, 1), List.of(asBefore.formerSpace(0), asBefore.formerSpace(1)),
                "every device where that release left it: kept");
        DeviceStart.Outcome alone = open(true, List.of(), a);
        assertEquals(List.of(0), List.of(alone.formerSpace(0)));
    }

    @Test
    void aPowerCutDuringTheFirstStartOnDevicesARunIdlessReleaseLeftLosesNothing() throws Exception {
        UUID instance = UUID.randomUUID();
        DeviceLayout layout = DeviceLayout.forDevice(BLOCKS, SEGMENT);
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        MemoryDevice b = MemoryDevice.blank("b", BLOCKS, 8);
        writeBlock0(a, asARunIdlessReleaseWrites(new Superblock(instance, 0, 2, layout, 3L << 36)));
        writeBlock0(b, asARunIdlessReleaseWrites(new Superblock(instance, 1, 2, layout, 3L << 36)));
        MemoryDevice earlierB = new MemoryDevice("b", b.image(), 8);
        startCutAt(1, a, b); // the first start of this release reaches a, then the power goes
        assertFalse(Superblock.decode(DeviceStart.readBlock(driver(a), 0), "a").stamp().settled());
        DeviceStart.Outcome next = open(true, List.of(), a, b);
        assertEquals(instance, next.instance());
        assertEquals(List.of(0, 1), List.of(next.formerSpace(0), next.formerSpace(1)),
                "b is as that release left it, and the cut start did not serve: kept");
        startCutAt(1, a, b); // and again
        assertEquals(List.of(0, 1), List.of(open(true, List.of(), a, b).formerSpace(0),
                open(true, List.of(), a, b).formerSpace(1)));
        start(a, b); // a start that settles: from now on b's stamp-less state is a start behind
        String refused = assertThrows(CacheRecoveryException.class, () -> open(true, List.of(), a, earlierB))
                .getMessage();
        assertTrue(refused.contains("b holds this cache as it was before a run it was not part of"), refused);
    }

    /** Block 0 as a release before start stamps writes it: zeros where the stamp lies. */
    private static ByteBuffer asARunIdlessReleaseWrites(Superblock superblock) {
        ByteBuffer block = superblock.encode();
        for (int at = 96; at < 136; at++) {
            block.put(at, (byte) 0);
        }
        return block;
    }

    @Test
    void cutsInARowDuringStartsWithTheListUnchangedLoseNothingEvenInStrictMode() throws Exception {
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        MemoryDevice b = MemoryDevice.blank("b", BLOCKS, 8);
        start(a, b);
        for (int cuts = 1; cuts <= 3; cuts++) {
            startCutAt(1, a, b); // a's superblock write reaches it, b's is lost
            DeviceStart.Outcome next = open(true, List.of(), a, b);
            assertEquals(List.of(0, 1), List.of(next.formerSpace(0), next.formerSpace(1)),
                    "after " + cuts + " cut start(s), b missed only starts that never served: " + next.why());
        }
        start(a, b);
        assertEquals(List.of(0, 1), List.of(open(true, List.of(), a, b).formerSpace(0),
                open(true, List.of(), a, b).formerSpace(1)));
    }

    /**
     * A start of {@code devices} whose superblock writes reach those before {@code cut} and stop there
     * (the writes for device {@code cut} go to a scratch copy, whose first write fails).
     */
    private void startCutAt(int cut, MemoryDevice... devices) throws Exception {
        DeviceStart.Outcome outcome = open(false, List.of(), devices);
        List<StorageDriver> drivers = new java.util.ArrayList<>();
        for (int i = 0; i < devices.length; i++) {
            if (i == cut) {
                FaultyDevice scratch = new FaultyDevice(new MemoryDevice(devices[i].path(), devices[i].image(), 8));
                scratch.failNth(FaultyDevice.Op.WRITE, 1);
                drivers.add(new StorageDriver(scratch, 2, TimeUnit.SECONDS.toNanos(5)));
            } else {
                drivers.add(driver(devices[i]));
            }
        }
        assertThrows(java.io.IOException.class, () -> DeviceStart.reserveSequences(drivers, outcome,
                outcome.sequenceFloor()));
    }

    @Test
    void cutStartsThatLeaveEachDeviceOfADifferentOneLoseNothing() throws Exception {
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        MemoryDevice b = MemoryDevice.blank("b", BLOCKS, 8);
        MemoryDevice c = MemoryDevice.blank("c", BLOCKS, 8);
        start(a, b, c);
        startCutAt(2, a, b, c); // a and b of the first cut start, c of the settled one
        startCutAt(1, a, b, c); // a of the second, b of the first, c of the settled one
        DeviceStart.Outcome next = open(true, List.of(), a, b, c);
        assertEquals(List.of(0, 1, 2), List.of(next.formerSpace(0), next.formerSpace(1), next.formerSpace(2)),
                "no start since the settled one served: every device is of the cache's last state: " + next.why());
        startCutAt(1, a, b, c);
        assertEquals(List.of(0, 1, 2), List.of(open(true, List.of(), a, b, c).formerSpace(0),
                open(true, List.of(), a, b, c).formerSpace(1), open(true, List.of(), a, b, c).formerSpace(2)));
    }

    @Test
    void copiesOfEveryDeviceRunApartWithTheClockBehindAreNeverMixed() throws Exception {
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        MemoryDevice b = MemoryDevice.blank("b", BLOCKS, 8);
        start(a, b);
        MemoryDevice a2 = new MemoryDevice("a2", a.image(), 8);
        MemoryDevice b2 = new MemoryDevice("b2", b.image(), 8);
        // Both sets go on with the same run; a clock stepped back makes their reservations alike.
        clock.set(0);
        start(a, b);
        start(a2, b2);
        DeviceStart.Outcome mixed = open(false, List.of(), a, b2);
        assertTrue(mixed.formerSpace(0) == -1 || mixed.formerSpace(1) == -1,
                "a and b2 took part in different starts: one joins empty: " + mixed);
        String refused = assertThrows(CacheRecoveryException.class, () -> open(true, List.of(), b, a2)).getMessage();
        assertTrue(refused.contains("as it was before a start it was not part of"), refused);
        // At the same clock too, their starts tie: neither is kept.
        clock.set(0);
        start(a, b);
        clock.set(0);
        start(a2, b2);
        assertTrue(open(false, List.of(), a, b2).formatted(), "two starts at the same limit and time: neither kept");
    }

    @Test
    void aDeviceOfThePerChunkEngineAddedIsFormattedIntoTheCacheEvenInStrictMode() throws Exception {
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        MemoryDevice b = MemoryDevice.blank("b", BLOCKS, 8);
        UUID instance = start(a, b).instance();
        MemoryDevice old = MemoryDevice.blank("/dev/old", BLOCKS, 8);
        writeBlock0(old, PerChunkSuperblock.block(UUID.randomUUID(), BLOCKS));
        DeviceStart.Outcome outcome = open(true, List.of(), a, b, old);
        assertEquals(instance, outcome.instance(), "the cache on a and b is kept: " + outcome.why());
        assertEquals(List.of(0, 1, -1), List.of(outcome.formerSpace(0), outcome.formerSpace(1), outcome.formerSpace(2)));
    }

    @Test
    void aDeviceAndItsCopyListedTogetherAreBothFormatted() throws Exception {
        for (boolean copyFirst : new boolean[] {false, true}) {
            MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
            MemoryDevice b = MemoryDevice.blank("b", BLOCKS, 8);
            start(a, b);
            MemoryDevice copy = new MemoryDevice("copy", a.image(), 8);
            MemoryDevice[] listed = copyFirst ? new MemoryDevice[] {copy, a, b} : new MemoryDevice[] {a, copy, b};
            String refused = assertThrows(CacheRecoveryException.class, () -> open(true, List.of(), listed))
                    .getMessage();
            assertTrue(refused.contains((copyFirst ? "copy and a" : "a and copy") + " each hold address space 0"),
                    refused);
            DeviceStart.Outcome outcome = open(false, List.of(), listed);
            assertEquals(List.of(-1, -1, 1), List.of(outcome.formerSpace(0), outcome.formerSpace(1),
                    outcome.formerSpace(2)), "which of the two is the original is unknown: both join empty");
        }
    }

    @Test
    void theCacheThatRanLastIsKeptWhenDevicesOfAnOlderCacheAreAdded() throws Exception {
        MemoryDevice old1 = MemoryDevice.blank("old1", BLOCKS, 8);
        MemoryDevice old2 = MemoryDevice.blank("old2", BLOCKS, 8);
        open(false, List.of(), old1, old2);
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        UUID running = open(false, List.of(), a).instance();
        DeviceStart.Outcome outcome = open(false, List.of(), old1, a, old2);
        assertEquals(running, outcome.instance(), "the newer cache, though fewer devices hold it");
        assertEquals(List.of(-1, 0, -1), List.of(outcome.formerSpace(0), outcome.formerSpace(1), outcome.formerSpace(2)));
    }

    @Test
    void aDeviceOfAnotherCacheIsFormattedIntoThisOneOrInStrictModeRefused() throws Exception {
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        MemoryDevice b = MemoryDevice.blank("b", BLOCKS, 8);
        MemoryDevice c = MemoryDevice.blank("c", BLOCKS, 8);
        UUID other = open(false, List.of(), c).instance();
        UUID ours = open(false, List.of(), a, b).instance(); // started after c's cache
        String refused = assertThrows(CacheRecoveryException.class, () -> open(true, List.of(), c, a, b)).getMessage();
        assertTrue(refused.contains("c belongs to cache instance " + other + "; the cache kept is " + ours)
                && refused.contains("strict mode refuses"), refused);
        // The cache that started last is kept; the device of the other joins it.
        DeviceStart.Outcome joined = open(false, List.of(), c, a, b);
        assertFalse(joined.formatted(), joined.why());
        assertEquals(ours, joined.instance());
        assertEquals(List.of(-1, 0, 1), List.of(joined.formerSpace(0), joined.formerSpace(1), joined.formerSpace(2)));
        assertEquals(ours, open(true, List.of(), c, a, b).instance());
    }

    @Test
    void aSegmentSizeChangedFormatsEveryDeviceOrInStrictModeRefuses() throws Exception {
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        MemoryDevice b = MemoryDevice.blank("b", BLOCKS, 8);
        UUID instance = open(false, List.of(), a, b).instance();
        String resized = assertThrows(CacheRecoveryException.class, () -> DeviceStart.open(
                List.of(driver(a), driver(b)), 2 * SEGMENT, true, List.of(), () -> 1)).getMessage();
        assertTrue(resized.contains("a was laid out with segments of " + SEGMENT + " bytes, the configuration gives "
                + 2 * SEGMENT + " (segment_size changed)"), resized);
        DeviceStart.Outcome formatted = DeviceStart.open(List.of(driver(a), driver(b)), 2 * SEGMENT, false, List.of(),
                () -> 1);
        assertTrue(formatted.formatted());
        assertFalse(instance.equals(formatted.instance()));
    }

    @Test
    void aGrownDeviceKeepsItsLayoutAndAShrunkOneIsFormattedIntoTheCache() throws Exception {
        MemoryDevice a = MemoryDevice.blank("a", BLOCKS, 8);
        MemoryDevice b = MemoryDevice.blank("b", BLOCKS, 8);
        UUID instance = open(false, List.of(), a, b).instance();
        MemoryDevice grown = new MemoryDevice("a", Arrays.copyOf(a.image(), (int) (3 * BLOCKS * BlockDevice.BLOCK_SIZE)), 8);
        MemoryDevice shrunk = new MemoryDevice("b", Arrays.copyOf(b.image(), (int) (BLOCKS / 2 * BlockDevice.BLOCK_SIZE)),
                8);
        String refused = assertThrows(CacheRecoveryException.class, () -> open(true, List.of(), grown, shrunk))
                .getMessage();
        assertTrue(refused.contains("b was laid out for 8 MiB and now holds 4 MiB (capacity changed")
                && !refused.contains("a was"), refused);
        DeviceStart.Outcome outcome = open(false, List.of(), grown, shrunk);
        assertFalse(outcome.formatted(), outcome.why());
        assertEquals(instance, outcome.instance());
        assertEquals(DeviceLayout.forDevice(BLOCKS, SEGMENT), outcome.layouts().get(0), "the part it was laid out on");
        assertEquals(DeviceLayout.forDevice(BLOCKS / 2, SEGMENT), outcome.layouts().get(1));
        assertEquals(List.of(0, -1), List.of(outcome.formerSpace(0), outcome.formerSpace(1)));
    }
}

package io.flashchunk.cache.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.files.ChunkKeys;
import io.flashchunk.cache.format.RecordAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ChunkIndexTest {
    /** A chunk key as the adapter makes them: small file ids, 16 KiB chunk positions. */
    private static long key(int i) {
        return ChunkKeys.key(1 + i / 4096, (long) (i % 4096) * 16384);
    }

    /** A distinct address for each (i, version). */
    private static long address(int i, int version) {
        return RecordAddress.of(i % 64, 1 + ((long) i << 10 | version));
    }

    @Test
    void findsEveryChunkPutAtItsSizedCapacity() {
        int n = 200_000;
        ChunkIndex index = new ChunkIndex(n);
        int displaced = 0;
        for (int i = 0; i < n; i++) {
            displaced += index.put(key(i), address(i, 0)) == RecordAddress.NONE ? 0 : 1;
        }
        int found = 0;
        for (int i = 0; i < n; i++) {
            found += index.find(key(i)) == address(i, 0) ? 1 : 0;
        }
        // Two choices of bucket keep full buckets rare at 90% load: a displaced chunk is only a miss.
        assertTrue(displaced < n / 10_000, displaced + " of " + n + " displaced");
        assertEquals(n - displaced, found);
        assertEquals(n - displaced, index.entries());
        assertEquals(RecordAddress.NONE, index.find(key(n + 1)));
    }

    @Test
    void costsUnderNineBytesAChunkAtItsSizedCapacity() {
        for (long n : new long[] {1_000, 1_000_000, 10_000_000}) {
            ChunkIndex index = new ChunkIndex(n);
            double perChunk = (double) index.bytes() / n;
            assertTrue(perChunk <= 8.0 / 0.9 + 0.01, n + " chunks: " + perChunk + " bytes each");
        }
    }

    @Test
    void aSecondPutOfAKeyReplacesItsAddress() {
        ChunkIndex index = new ChunkIndex(1000);
        assertEquals(RecordAddress.NONE, index.put(key(7), address(7, 0)));
        assertEquals(address(7, 0), index.put(key(7), address(7, 1)));
        assertEquals(address(7, 1), index.find(key(7)));
        assertEquals(1, index.entries());
    }

    @Test
    void removeTakesOutOnlyTheAddressNamed() {
        ChunkIndex index = new ChunkIndex(1000);
        index.put(key(3), address(3, 1));
        assertFalse(index.remove(key(3), address(3, 0)), "an older address of the key");
        assertFalse(index.remove(key(4), address(3, 1)), "another key");
        assertEquals(address(3, 1), index.find(key(3)));
        assertTrue(index.remove(key(3), address(3, 1)));
        assertEquals(RecordAddress.NONE, index.find(key(3)));
        assertEquals(0, index.entries());
    }

    @Test
    void aReadMarkHoldsUntilTheChunkIsPutAgain() {
        ChunkIndex index = new ChunkIndex(1000);
        index.put(key(5), address(5, 0));
        assertFalse(index.wasRead(key(5), address(5, 0)));
        index.markRead(key(5), address(5, 1)); // a stale address marks nothing
        assertFalse(index.wasRead(key(5), address(5, 0)));
        index.markRead(key(5), address(5, 0));
        assertTrue(index.wasRead(key(5), address(5, 0)));
        assertEquals(address(5, 0), index.find(key(5)), "the mark is not part of the address");
        index.put(key(5), address(5, 1));
        assertFalse(index.wasRead(key(5), address(5, 1)));
        assertTrue(index.remove(key(5), address(5, 1)), "a marked or unmarked slot is removed alike");
    }

    @Test
    void pastItsCapacityAPutDisplacesChunksNotReadBeforeChunksRead() {
        int n = 10_000;
        ChunkIndex index = new ChunkIndex(n);
        for (int i = 0; i < n; i++) {
            index.put(key(i), address(i, 0));
            if (i % 2 == 0) {
                index.markRead(key(i), address(i, 0));
            }
        }
        long displacedRead = 0;
        long displacedUnread = 0;
        for (int i = n; i < 2 * n; i++) {
            long displaced = index.put(key(i), address(i, 0));
            if (displaced != RecordAddress.NONE && RecordAddress.sector(displaced) - 1 >>> 10 < n) {
                if ((RecordAddress.sector(displaced) - 1 >>> 10) % 2 == 0) {
                    displacedRead++;
                } else {
                    displacedUnread++;
                }
            }
        }
        assertTrue(index.entries() <= index.slots());
        assertTrue(displacedUnread > 3 * displacedRead, displacedUnread + " unread, " + displacedRead + " read displaced");
    }

    @Test
    void removeIfClearsEveryEntryItsPredicateAccepts() {
        int n = 5_000;
        ChunkIndex index = new ChunkIndex(n);
        for (int i = 0; i < n; i++) {
            index.put(key(i), address(i, 0));
        }
        long before = index.entries();
        long removed = index.removeIf(a -> RecordAddress.space(a) == 3);
        assertEquals(before - removed, index.entries());
        for (int i = 0; i < n; i++) {
            long found = index.find(key(i));
            if (i % 64 == 3) {
                assertEquals(RecordAddress.NONE, found, "chunk " + i);
            }
        }
        assertTrue(removed > n / 64 - 20, removed + " removed");
    }

    @Test
    void aPassGoesBackBucketByBucket() {
        int n = 100_000; // full enough that many entries sit in their second bucket
        ChunkIndex index = new ChunkIndex(n);
        for (int i = 0; i < n; i++) {
            index.put(key(i), address(i, 0));
        }
        index.markRead(key(3), address(3, 0));
        ChunkIndex copy = ChunkIndex.withBuckets(index.buckets());
        long[] refused = {0};
        ChunkIndex.Pass pass = index.startPass();
        assertTrue(pass.visit(Long.MAX_VALUE, (bucket, slot) -> refused[0] += copy.restoreExact(bucket, slot) ? 0 : 1));
        assertEquals(index.buckets(), pass.visited());
        assertEquals(0, refused[0]);
        assertEquals(index.entries(), copy.entries());
        for (int i = 0; i < n; i++) {
            assertEquals(index.find(key(i)), copy.find(key(i)), "chunk " + i);
        }
        assertTrue(copy.wasRead(key(3), address(3, 0)), "the read bit comes back");
        assertFalse(copy.restoreExact(copy.buckets(), address(1, 0)), "a bucket outside the table");
        assertThrows(IllegalStateException.class, () -> pass.visit(1, (bucket, slot) -> { }), "the pass is over");
    }

    /**
     * A pass made in steps while the writer puts (moving entries between buckets to make room),
     * replaces and removes between them: no entry twice, no bucket with more than a bucket's worth,
     * and every entry that held one address from the pass's start to its end given exactly once, so
     * that the copy goes back bucket by bucket as an exact one does.
     */
    @Test
    void aPassInStepsGivesEachEntryOnceWhateverTheWriterDoesBetweenSteps() {
        int n = 50_000;
        ChunkIndex index = new ChunkIndex(n);
        java.util.Map<Long, Long> atStart = new java.util.HashMap<>();
        for (int i = 0; i < n; i++) { // the load it is sized for: many full buckets
            index.put(key(i), address(i, 0));
            atStart.put(key(i), address(i, 0));
        }
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        java.util.Map<Long, Long> givenAddresses = new java.util.HashMap<>(); // address -> bucket
        java.util.Map<Long, Integer> perBucket = new java.util.HashMap<>();
        ChunkIndex.Pass pass = index.startPass();
        assertThrows(IllegalStateException.class, index::startPass, "one pass at a time");
        int next = n;
        int moved = 0;
        boolean done = false;
        while (!done) {
            done = pass.visit(1 + random.nextInt(40), (bucket, slot) -> {
                long address = ChunkIndex.address(slot);
                assertTrue(givenAddresses.put(address, bucket) == null, "given twice: " + address);
                assertTrue(perBucket.merge(bucket, 1, Integer::sum) <= ChunkIndex.BUCKET_SLOTS, "bucket " + bucket);
            });
            for (int step = 0; step < 20; step++) {
                double what = random.nextDouble();
                if (what < 0.6) {
                    // new keys fill the index up: full buckets move entries to their other buckets
                    index.put(key(next), address(next, 1));
                    next++;
                } else if (what < 0.8) {
                    int i = random.nextInt(n);
                    index.remove(key(i), address(i, 0));
                } else {
                    int i = random.nextInt(n);
                    index.put(key(i), address(i, 2));
                }
            }
            moved++;
        }
        assertTrue(moved > 100 && next > n + 2000, "the writer went on between " + moved + " steps");
        int kept = 0;
        for (java.util.Map.Entry<Long, Long> e : atStart.entrySet()) {
            if (index.find(e.getKey()) == e.getValue()) {
                assertTrue(givenAddresses.containsKey(e.getValue()), "an entry held throughout was not given: " + e);
                kept++;
            }
        }
        assertTrue(kept > n / 2, kept + " entries held throughout");
        // With the pass over, moves across its cursor are allowed again: the index fills as before.
        for (int i = next; i < next + n / 10; i++) {
            index.put(key(i), address(i, 3));
        }
    }

    @Test
    void aPassClosedEarlyEndsAndAnotherMayStart() {
        ChunkIndex index = new ChunkIndex(1000);
        for (int i = 0; i < 900; i++) {
            index.put(key(i), address(i, 0));
        }
        ChunkIndex.Pass first = index.startPass();
        assertFalse(first.visit(3, (bucket, slot) -> { }));
        first.close();
        assertThrows(IllegalStateException.class, () -> first.visit(1, (bucket, slot) -> { }));
        long[] given = {0};
        assertTrue(index.startPass().visit(Long.MAX_VALUE, (bucket, slot) -> given[0]++));
        assertEquals(900, given[0]);
    }

    @Test
    void refusesAddressesAndSizesItCannotHold() {
        assertThrows(IllegalArgumentException.class, () -> new ChunkIndex(0));
        assertThrows(IllegalArgumentException.class, () -> new ChunkIndex(ChunkIndex.MAX_ENTRIES + 1));
        ChunkIndex index = new ChunkIndex(10);
        assertThrows(IllegalArgumentException.class, () -> index.put(key(1), RecordAddress.NONE));
        assertThrows(IllegalArgumentException.class, () -> index.put(key(1), 1L << RecordAddress.BITS));
        assertThrows(IllegalArgumentException.class, () -> RecordAddress.of(64, 1));
        assertThrows(IllegalArgumentException.class, () -> RecordAddress.of(0, 0));
        assertThrows(IllegalArgumentException.class, () -> RecordAddress.of(0, RecordAddress.MAX_SECTOR + 1));
    }

    /**
     * One writer moves every key through versions (sometimes removing it in between) while a reader
     * looks them up and marks them read: the reader never sees a key go back to an older version, and
     * after the writer stops every key is where it was put last.
     */
    @Test
    void aReaderNeverSeesAKeyGoBackWhileTheWriterMovesIt() throws Exception {
        int n = 4_096;
        int rounds = 300;
        ChunkIndex index = new ChunkIndex(n);
        CountDownLatch start = new CountDownLatch(2);
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<String> failure = new AtomicReference<>();
        AtomicLong foreign = new AtomicLong();
        AtomicLong lookups = new AtomicLong();
        Thread reader = new Thread(() -> {
            int[] seen = new int[n];
            start.countDown();
            try {
                start.await();
            } catch (InterruptedException e) {
                return;
            }
            while (writing.get() && failure.get() == null) {
                for (int i = 0; i < n; i++) {
                    long found = index.find(key(i));
                    lookups.incrementAndGet();
                    if (found == RecordAddress.NONE) {
                        continue;
                    }
                    long code = RecordAddress.sector(found) - 1;
                    if (code >>> 10 != i) {
                        foreign.incrementAndGet(); // same buckets and tag: the flash check rejects it
                        continue;
                    }
                    int version = (int) (code & 1023);
                    if (version < seen[i]) {
                        failure.set("key " + i + " went back from version " + seen[i] + " to " + version);
                    }
                    seen[i] = version;
                    index.markRead(key(i), found);
                }
            }
        });
        reader.start();
        start.countDown();
        start.await();
        // At least `rounds` rounds, and more until the reader has looked up every key ten times (a
        // loaded machine may run it late), within the 1,023 versions an address holds.
        int round = 1;
        for (; (round <= rounds || lookups.get() < 10L * n) && round < 1023 && failure.get() == null; round++) {
            for (int i = 0; i < n; i++) {
                if ((i + round) % 7 == 0) {
                    index.remove(key(i), address(i, round - 1));
                }
                index.put(key(i), address(i, round));
            }
        }
        writing.set(false);
        reader.join();
        assertEquals(null, failure.get());
        assertTrue(lookups.get() >= 10L * n, "the reader ran: " + lookups.get() + " lookups");
        assertTrue(foreign.get() * 100_000 < lookups.get(), foreign.get() + " foreign of " + lookups.get());
        for (int i = 0; i < n; i++) {
            assertEquals(address(i, round - 1), index.find(key(i)), "key " + i);
        }
        assertEquals(n, index.entries());
    }
}

package io.flashchunk.cache.index;

import io.flashchunk.cache.format.RecordAddress;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.LongConsumer;
import java.util.function.LongPredicate;

/**
 * The chunk index of the engine: chunk key to {@link RecordAddress}, in 8-byte slots and no
 * object per chunk (8.9 bytes a chunk at the load it is sized for; docs/engine.md).
 *
 * <p>A slot holds 21 bits of the key's hash (the tag), a "read since written" bit and the record's
 * address; 0 is an empty slot. Slots sit in buckets of {@value #BUCKET_SLOTS} (one cache line), and a
 * key may sit in either of two buckets: the first from its hash, the second such that the two add up
 * to a hash of the tag (modulo the bucket count), so an entry's other bucket is known from its slot
 * alone and a full bucket can move an entry there to make room (cuckoo hashing's partial-key
 * relocation, one step deep). The full key is not here: it is
 * in the record on flash, and the reader must check it there. A lookup can therefore name another
 * key's record (same buckets and tag, about one lookup in 130,000 when the buckets are full); it
 * can never make the reader serve it.
 *
 * <p>Concurrency: one writer thread calls {@link #put}, {@link #remove} and {@link #removeIf}; any
 * thread may call {@link #find} and {@link #markRead} at any time without locks. A reader sees each
 * slot as it was before or after a write, never torn; a lookup that races with a relocation of its
 * entry may miss it.
 *
 * <p>Capacity: sized for {@code maxEntries} at 90% of its slots. Past that, or when both of a key's
 * buckets are full and no entry of theirs can move, {@link #put} overwrites a slot (preferring one not read since written) and
 * returns what it displaced; that chunk's record becomes garbage in its segment.
 */
public final class ChunkIndex {
    public static final int BUCKET_SLOTS = 8;
    /**
     * Slots per page: 256 KiB pages, below half of G1's smallest region (1 MiB), so no page is a
     * humongous object (with 8 MiB pages the heap grew by half as much again as the slots).
     */
    static final int PAGE_SLOTS = 1 << 15;
    /** The share of slots the table is sized to fill. */
    static final double LOAD = 0.9;
    /** Most entries a table may be sized for: 2^32 buckets. */
    public static final long MAX_ENTRIES = (long) (LOAD * BUCKET_SLOTS * (1L << 32));

    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int PAGE_SHIFT = 15;
    private static final long READ_BIT = 1L << RecordAddress.BITS;
    private static final int TAG_SHIFT = RecordAddress.BITS + 1;
    private static final long EMPTY = 0;

    private final long[][] pages;
    private final long buckets;
    // Written by the one writer only; volatile so that any thread may read the count.
    private volatile long entries;
    /** The copy in steps under way ({@link #startPass}), or null; the writer's alone. */
    private Pass pass;

    public ChunkIndex(long maxEntries) {
        this(bucketsFor(maxEntries), null);
    }

    /**
     * An index of exactly {@code buckets} buckets: as a checkpoint's header names them, for reading
     * that checkpoint back where the entry count it was sized for is not known (the checkpoint tool).
     */
    public static ChunkIndex withBuckets(long buckets) {
        if (buckets < 2 || buckets > 1L << 32) {
            throw new IllegalArgumentException("a compact index has 2.." + (1L << 32) + " buckets, not " + buckets);
        }
        return new ChunkIndex(buckets, null);
    }

    /** Memory the slots of an index for {@code maxEntries} take. */
    public static long bytesFor(long maxEntries) {
        return bucketsFor(maxEntries) * BUCKET_SLOTS * Long.BYTES;
    }

    private static long bucketsFor(long maxEntries) {
        if (maxEntries < 1 || maxEntries > MAX_ENTRIES) {
            throw new IllegalArgumentException("a compact index holds 1.." + MAX_ENTRIES + " entries, not " + maxEntries);
        }
        return Math.max(2, (long) Math.ceil(maxEntries / LOAD / BUCKET_SLOTS));
    }

    private ChunkIndex(long buckets, Void bucketCount) {
        this.buckets = buckets;
        long slots = buckets * BUCKET_SLOTS;
        int pageCount = (int) ((slots + PAGE_SLOTS - 1) / PAGE_SLOTS);
        pages = new long[pageCount][];
        for (int i = 0; i < pageCount; i++) {
            pages[i] = new long[(int) Math.min(PAGE_SLOTS, slots - (long) i * PAGE_SLOTS)];
        }
    }

    /**
     * The address the index holds for {@code key}, {@link RecordAddress#NONE} if none. The record there
     * may belong to another key with the same tag: the caller checks the key stored on flash.
     */
    public long find(long key) {
        long hash = hash(key);
        long tag = tag(hash);
        long first = bucket(hash);
        long found = findIn(first, tag);
        return found != EMPTY ? found & RecordAddress.MASK : findIn(otherBucket(first, tag), tag) & RecordAddress.MASK;
    }

    /** Whether {@code key}'s entry has been marked read since it was put at {@code address}. */
    public boolean wasRead(long key, long address) {
        long slot = slotOf(key, address);
        return slot != -1 && (get(slot) & READ_BIT) != 0;
    }

    /**
     * Marks {@code key}'s entry read, if it still holds {@code address}: the record earned a hit since
     * it was written. May be lost when the writer changes the slot at the same moment.
     */
    public void markRead(long key, long address) {
        long slot = slotOf(key, address);
        if (slot != -1) {
            long value = get(slot);
            if ((value & READ_BIT) == 0 && (value & RecordAddress.MASK) == address) {
                SLOTS.compareAndSet(pages[page(slot)], offset(slot), value, value | READ_BIT);
            }
        }
    }

    /**
     * Points {@code key} at {@code address} (writer only), not yet read. Returns the address this put
     * took the place of: the key's previous one, that of a key sharing its buckets and tag, or that of
     * a key displaced from a full bucket; {@link RecordAddress#NONE} when it took an empty slot.
     */
    long put(long key, long address) {
        checkAddress(address);
        return putSlot(key, address);
    }

    private long putSlot(long key, long address) {
        long hash = hash(key);
        long tag = tag(hash);
        long first = bucket(hash);
        long second = otherBucket(first, tag);
        long value = tag << TAG_SHIFT | address;
        long same = slotWithTag(first, tag);
        if (same == -1) {
            same = slotWithTag(second, tag);
        }
        if (same != -1) {
            return replace(same, value);
        }
        long free = freeSlot(fill(first) <= fill(second) ? first : second);
        if (free == -1) {
            free = makeRoom(first);
        }
        if (free == -1) {
            free = makeRoom(second);
        }
        if (free != -1) {
            set(free, value);
            entries++;
            return RecordAddress.NONE;
        }
        return replace(victim(first), value);
    }

    /**
     * Frees a slot of a full bucket by moving one of its entries to that entry's other bucket, if
     * that has room; returns the freed slot or -1. The copy is written before the original is cleared,
     * so a reader finds the entry in one bucket or the other, or (racing) in neither.
     */
    private long makeRoom(long bucket) {
        long base = bucket * BUCKET_SLOTS;
        for (int i = 0; i < BUCKET_SLOTS; i++) {
            long value = get(base + i);
            long other = otherBucket(bucket, value >>> TAG_SHIFT);
            // A move across a pass's cursor would let it see the entry twice, or never.
            if (other != bucket && (pass == null || pass.copied(bucket) == pass.copied(other))) {
                long free = freeSlot(other);
                if (free != -1) {
                    set(free, value);
                    set(base + i, EMPTY);
                    return base + i;
                }
            }
        }
        return -1;
    }

    /** Removes {@code key}'s entry if it still holds {@code address} (writer only); returns whether it did. */
    boolean remove(long key, long address) {
        long slot = slotOf(key, address);
        if (slot == -1) {
            return false;
        }
        set(slot, EMPTY);
        entries--;
        return true;
    }

    /** Removes every entry whose address the predicate accepts (writer only); returns how many. */
    long removeIf(LongPredicate onAddress) {
        return removeIf(onAddress, address -> { });
    }

    /** As {@link #removeIf(LongPredicate)}, handing each removed entry's address to {@code removed}. */
    long removeIf(LongPredicate onAddress, LongConsumer removedAddress) {
        long removed = 0;
        try {
            for (long[] page : pages) {
                for (int i = 0; i < page.length; i++) {
                    long value = (long) SLOTS.getAcquire(page, i);
                    if (value != EMPTY && onAddress.test(value & RecordAddress.MASK)) {
                        SLOTS.setRelease(page, i, EMPTY);
                        removed++;
                        removedAddress.accept(value & RecordAddress.MASK);
                    }
                }
            }
            return removed;
        } finally {
            entries -= removed;
        }
    }

    /** Receives the slots of a {@link #forEachSlot} pass. */
    @FunctionalInterface
    public interface SlotVisitor {
        void visit(long bucket, long slot);
    }

    /**
     * Hands every slot in use to {@code visitor} with its bucket, bucket by bucket (any thread, no
     * lock: each slot as it was at some moment of the pass). A checkpoint saves these pairs, and
     * {@link #restore} puts them back into a table of the same {@link #buckets()} count.
     */
    public void forEachSlot(SlotVisitor visitor) {
        for (int p = 0; p < pages.length; p++) {
            long[] page = pages[p];
            for (int i = 0; i < page.length; i++) {
                long value = (long) SLOTS.getAcquire(page, i);
                if (value != EMPTY) {
                    visitor.visit((((long) p << PAGE_SHIFT) + i) / BUCKET_SLOTS, value);
                }
            }
        }
    }

    /**
     * Starts a copy of the index made in steps between the writer's changes (writer only; one at a
     * time): each {@link Pass#visit} hands over the slots of the next buckets. Meanwhile no entry moves
     * between a bucket already handed over and one not yet ({@link #makeRoom} picks another or none),
     * so the pass gives no entry twice and at most a bucket's worth of slots per bucket, as an exact
     * copy does; an entry put, changed or removed meanwhile is seen as it is when its bucket's turn
     * comes.
     */
    public Pass startPass() {
        if (pass != null) {
            throw new IllegalStateException("a pass over the index is already under way");
        }
        pass = new Pass();
        return pass;
    }

    /** A copy of the index in steps ({@link #startPass}); ends when every bucket was handed over, or at {@link #close}. */
    public final class Pass implements AutoCloseable {
        /** Buckets below this have been handed over. */
        private long next;

        private Pass() {
        }

        boolean copied(long bucket) {
            return bucket < next;
        }

        /**
         * Hands the slots in use of the next {@code count} buckets to {@code visitor}, bucket by bucket
         * (writer only); returns whether every bucket has now been handed over (the pass is then over).
         */
        public boolean visit(long count, SlotVisitor visitor) {
            if (pass != this) {
                throw new IllegalStateException("this pass over the index is over");
            }
            long end = Math.min(buckets, next + Math.max(1, count));
            for (long bucket = next; bucket < end; bucket++) {
                long base = bucket * BUCKET_SLOTS;
                for (int i = 0; i < BUCKET_SLOTS; i++) {
                    long value = get(base + i);
                    if (value != EMPTY) {
                        visitor.visit(bucket, value);
                    }
                }
                next = bucket + 1;
            }
            if (next == buckets) {
                pass = null;
                return true;
            }
            return false;
        }

        /** Buckets handed over so far. */
        public long visited() {
            return next;
        }

        /** Ends the pass where it is (a failed checkpoint); the writer's moves are free again. */
        @Override
        public void close() {
            if (pass == this) {
                pass = null;
            }
        }
    }

    /**
     * Puts back a slot that a {@link Pass} (or a {@link #forEachSlot} pass with no change meanwhile)
     * gave with its bucket, into that bucket (writer only, before readers start): such a pass gives no entry twice
     * and at most a bucket's worth of slots per bucket, so no other bucket is looked at. Returns false
     * when the slot is not one of this table's or its bucket is full. The read bit is kept.
     */
    boolean restoreExact(long bucket, long slot) {
        if (bucket < 0 || bucket >= buckets || slot == EMPTY || (slot & RecordAddress.MASK) == 0) {
            return false;
        }
        long free = freeSlot(bucket);
        if (free == -1) {
            return false;
        }
        set(free, slot);
        entries++;
        return true;
    }

    /**
     * Puts back a slot that any {@link #forEachSlot} pass gave with its bucket (writer only, before
     * readers start): into that bucket, else into the slot's other bucket; returns false when both
     * are full, the slot is not one of this table's, or either bucket already holds its tag (a pass
     * made while the writer went on may give an entry twice). The read bit is kept.
     */
    boolean restore(long bucket, long slot) {
        if (bucket < 0 || bucket >= buckets || slot == EMPTY || (slot & RecordAddress.MASK) == 0) {
            return false;
        }
        long tag = slot >>> TAG_SHIFT;
        long other = otherBucket(bucket, tag);
        if (slotWithTag(bucket, tag) != -1 || slotWithTag(other, tag) != -1) {
            return false; // a fuzzy copy can see an entry that moved twice: the first one stays
        }
        long free = freeSlot(bucket);
        if (free == -1) {
            free = freeSlot(other);
        }
        if (free == -1) {
            return false;
        }
        set(free, slot);
        entries++;
        return true;
    }

    /** The record address a slot holds. */
    public static long address(long slot) {
        return slot & RecordAddress.MASK;
    }

    /** {@code slot} with its record's address in address space {@code space}, at the same sector. */
    public static long inSpace(long slot, int space) {
        return slot & ~RecordAddress.MASK | RecordAddress.of(space, RecordAddress.sector(address(slot)));
    }

    /** Buckets of the table: a checkpoint's slots are restored only into a table with as many. */
    public long buckets() {
        return buckets;
    }

    /** Entries held now. */
    public long entries() {
        return entries;
    }

    public long slots() {
        return buckets * BUCKET_SLOTS;
    }

    /** Memory the slots take. */
    public long bytes() {
        return slots() * Long.BYTES;
    }

    private long replace(long slot, long value) {
        long old = get(slot);
        set(slot, value);
        return old & RecordAddress.MASK;
    }

    /** The value of the slot in {@code bucket} with {@code tag}, as read while scanning (read once). */
    private long findIn(long bucket, long tag) {
        long base = bucket * BUCKET_SLOTS;
        for (int i = 0; i < BUCKET_SLOTS; i++) {
            long value = get(base + i);
            if (value != EMPTY && value >>> TAG_SHIFT == tag) {
                return value;
            }
        }
        return EMPTY;
    }

    /** The slot holding {@code key}'s tag and exactly {@code address}, or -1. */
    private long slotOf(long key, long address) {
        long hash = hash(key);
        long tag = tag(hash);
        long first = bucket(hash);
        long slot = slotWith(first, tag, address);
        return slot != -1 ? slot : slotWith(otherBucket(first, tag), tag, address);
    }

    private long slotWith(long bucket, long tag, long address) {
        long base = bucket * BUCKET_SLOTS;
        for (int i = 0; i < BUCKET_SLOTS; i++) {
            long value = get(base + i);
            if (value != EMPTY && value >>> TAG_SHIFT == tag && (value & RecordAddress.MASK) == address) {
                return base + i;
            }
        }
        return -1;
    }

    private long slotWithTag(long bucket, long tag) {
        long base = bucket * BUCKET_SLOTS;
        for (int i = 0; i < BUCKET_SLOTS; i++) {
            long value = get(base + i);
            if (value != EMPTY && value >>> TAG_SHIFT == tag) {
                return base + i;
            }
        }
        return -1;
    }

    private long freeSlot(long bucket) {
        long base = bucket * BUCKET_SLOTS;
        for (int i = 0; i < BUCKET_SLOTS; i++) {
            if (get(base + i) == EMPTY) {
                return base + i;
            }
        }
        return -1;
    }

    private int fill(long bucket) {
        long base = bucket * BUCKET_SLOTS;
        int used = 0;
        for (int i = 0; i < BUCKET_SLOTS; i++) {
            used += get(base + i) == EMPTY ? 0 : 1;
        }
        return used;
    }

    /** The slot a full bucket gives up: the first not read since written, else its first. */
    private long victim(long bucket) {
        long base = bucket * BUCKET_SLOTS;
        for (int i = 0; i < BUCKET_SLOTS; i++) {
            if ((get(base + i) & READ_BIT) == 0) {
                return base + i;
            }
        }
        return base;
    }

    private long get(long slot) {
        return (long) SLOTS.getAcquire(pages[page(slot)], offset(slot));
    }

    private void set(long slot, long value) {
        SLOTS.setRelease(pages[page(slot)], offset(slot), value);
    }

    private static int page(long slot) {
        return (int) (slot >>> PAGE_SHIFT);
    }

    private static int offset(long slot) {
        return (int) (slot & (PAGE_SLOTS - 1));
    }

    private static void checkAddress(long address) {
        if (address <= 0 || (address & ~RecordAddress.MASK) != 0) {
            throw new IllegalArgumentException("not a record address: " + address);
        }
    }

    /** The first bucket: the low 32 bits of the hash, reduced to the bucket count by multiplication. */
    private long bucket(long hash) {
        return ((hash & 0xFFFF_FFFFL) * buckets) >>> 32;
    }

    /** The other bucket of an entry in {@code bucket} with this tag: the two add up to a hash of the tag. */
    private long otherBucket(long bucket, long tag) {
        long sum = bucket(mix(tag ^ 0x5851_F42D_4C95_7F2DL));
        return Math.floorMod(sum - bucket, buckets);
    }

    /** 24 bits of the hash that the first bucket did not use. */
    private static long tag(long hash) {
        return hash >>> TAG_SHIFT;
    }

    private static long hash(long key) {
        return mix(key);
    }

    /** MurmurHash3's 64-bit finaliser: file ids and positions are small sequential numbers. */
    private static long mix(long key) {
        long h = (key ^ (key >>> 33)) * 0xFF51_AFD7_ED55_8CCDL;
        h = (h ^ (h >>> 33)) * 0xC4CE_B9FE_1A85_EC53L;
        return h ^ (h >>> 33);
    }
}

package io.flashchunk.cache.index;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One cached chunk: its key (file id and chunk position), where it is, and its CRC32C. The same
 * object is the index's key and value, so a cached chunk costs one 32-byte object besides the
 * index's own nodes. Equality is by key only; {@link #probe} makes a lookup key.
 */
public final class ChunkEntry {
    private static final VarHandle LOCATION;

    static {
        try {
            LOCATION = MethodHandles.lookup().findVarHandle(ChunkEntry.class, "location", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long key;
    private final int crc;
    @SuppressWarnings("unused") // accessed through LOCATION
    private volatile long location;

    public ChunkEntry(long key, long location, int crc) {
        this.key = key;
        this.location = location;
        this.crc = crc;
    }

    /** A key-only object for lookups. */
    public static ChunkEntry probe(long key) {
        return new ChunkEntry(key, ChunkLocation.DEAD, 0);
    }

    public long key() {
        return key;
    }

    public int fileId() {
        return ChunkKeys.fileId(key);
    }

    public long position() {
        return ChunkKeys.position(key);
    }

    public int crc() {
        return crc;
    }

    public long location() {
        return (long) LOCATION.getVolatile(this);
    }

    public boolean compareAndSetLocation(long expected, long update) {
        return LOCATION.compareAndSet(this, expected, update);
    }

    /** Marks the entry dead (terminal) and returns where it was. */
    public long markDead() {
        return (long) LOCATION.getAndSet(this, ChunkLocation.DEAD);
    }

    /** Blocks in the run this chunk takes on flash, as a power of two. */
    public int order() {
        return ChunkLocation.order(ChunkLocation.length(location()));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ChunkEntry entry && entry.key == key;
    }

    @Override
    public int hashCode() {
        return ChunkKeys.hash(key);
    }

    @Override
    public String toString() {
        return "chunk " + fileId() + "@" + position() + " " + ChunkLocation.describe(location());
    }
}

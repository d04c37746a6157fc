package io.flashchunk.cache.files;

/** A data file the cache knows, under the id its chunks' keys carry. */
public final class CachedFile {
    private final int id;
    private volatile FileIdentity identity;
    private volatile boolean invalidated;
    private volatile boolean storeCompressed;
    /** Whether the cache's user has said, since this start, how this file's chunks are stored. */
    private volatile boolean formChosen;
    /** How much of a record of this file a hit reads first; 0 until a hit has read one. */
    private volatile int expectedRecordBytes;

    CachedFile(int id, FileIdentity identity) {
        this.id = id;
        this.identity = identity;
    }

    public int id() {
        return id;
    }

    public FileIdentity identity() {
        return identity;
    }

    /**
     * The same file (same inode) has grown since it was registered: a file still being written is
     * readable early, and its final identity is what the next checkpoint must record.
     */
    void grewTo(FileIdentity grown) {
        identity = grown;
    }

    public String path() {
        return identity.path();
    }

    /**
     * Whether chunks of this file offered from now on are stored compressed on flash (when that saves
     * enough); the cache's user decides it, per file, and may change its mind (chunks already stored
     * stay in their form).
     */
    public boolean storeCompressed() {
        return storeCompressed;
    }

    public void storeCompressed(boolean compressed) {
        this.storeCompressed = compressed;
        this.formChosen = true;
    }

    /**
     * Whether the cache's user has said, since this start, that this file's chunks are stored as they
     * are: a chunk of it kept compressed is then stored uncompressed when reinsertion writes it again.
     * False until it has said either (a file recovered from a checkpoint and not yet opened again).
     */
    public boolean storesUncompressed() {
        return formChosen && !storeCompressed;
    }

    /**
     * How many bytes of a record of this file a flash hit reads first (header and payload), learnt
     * from the records hits read ({@link #recordRead}); 0 (the longest a chunk can take) until then.
     */
    public int expectedRecordBytes() {
        return expectedRecordBytes;
    }

    /**
     * A hit read a record of {@code recordBytes} (header and payload): the expectation becomes the
     * largest of the records read lately: it rises to any longer record at once, and decays by
     * 1/32 a read toward shorter ones, so that a record longer than expected, read twice, stays rare.
     * Any thread (a lost update only delays learning).
     */
    public void recordRead(int recordBytes) {
        int expected = expectedRecordBytes;
        int decayed = expected - (expected >> 5);
        int next = Math.max(recordBytes, decayed);
        if (next != expected) {
            expectedRecordBytes = next;
        }
    }

    public boolean isInvalidated() {
        return invalidated;
    }

    void invalidate() {
        invalidated = true;
    }

    @Override
    public String toString() {
        return "file " + id + " " + identity.path();
    }
}

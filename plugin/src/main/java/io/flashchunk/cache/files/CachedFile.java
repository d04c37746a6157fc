package io.flashchunk.cache.files;

/** A data file the cache knows, under the id its chunks' keys carry. */
public final class CachedFile {
    private final int id;
    private volatile FileIdentity identity;
    private volatile boolean invalidated;

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

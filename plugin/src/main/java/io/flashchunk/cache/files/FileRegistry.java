package io.flashchunk.cache.files;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Gives each data file a compact id for chunk keys. Ids are never reused: a file invalidated and
 * written again under the same path gets a new id, so nothing cached for the old file can be found
 * for the new one, even before the old entries are swept away.
 */
public final class FileRegistry {
    private final Map<String, CachedFile> byPath = new ConcurrentHashMap<>();
    private final Map<Integer, CachedFile> byId = new ConcurrentHashMap<>();
    private final AtomicInteger nextId;

    public FileRegistry() {
        this(1);
    }

    public FileRegistry(int firstId) {
        this.nextId = new AtomicInteger(firstId);
    }

    /**
     * The live registration for the file with this identity. A registration of its path that is
     * provably the same file, no smaller (it is read while still being written), keeps its id and
     * takes the new identity; any other is handed to {@code replaced}, which must invalidate it, and
     * a new registration is made, so the old file's chunks are never served for the new one.
     */
    public CachedFile register(FileIdentity identity, Consumer<CachedFile> replaced) {
        while (true) {
            CachedFile known = byPath.get(identity.path());
            if (known == null) {
                int id = nextId.getAndIncrement();
                if (id <= 0) {
                    throw new IllegalStateException("file ids are exhausted");
                }
                CachedFile made = new CachedFile(id, identity);
                byId.put(id, made); // before the path leads to it: whoever finds the path finds the id
                if (byPath.putIfAbsent(identity.path(), made) == null) {
                    return made;
                }
                byId.remove(id);
            } else if (grew(known, identity)) {
                return known;
            } else {
                replaced.accept(known);
                byPath.remove(identity.path(), known); // whatever {@code replaced} did, never again
            }
        }
    }

    /** Whether {@code file}, still live, is provably the file {@code now} describes, and no smaller. */
    private boolean grew(CachedFile file, FileIdentity now) {
        FileIdentity known = file.identity();
        if (!known.sameFileAs(now) || now.sizeBytes() < known.sizeBytes() || byPath.get(known.path()) != file) {
            return false;
        }
        file.grewTo(now);
        return true;
    }

    /** Registers a file recovered from a checkpoint under its recorded id; false if id or path is taken. */
    public boolean restore(int id, FileIdentity identity) {
        CachedFile file = new CachedFile(id, identity);
        if (byId.putIfAbsent(id, file) != null) {
            return false;
        }
        if (byPath.putIfAbsent(identity.path(), file) != null) {
            byId.remove(id);
            return false;
        }
        nextId.accumulateAndGet(id + 1, Math::max);
        return true;
    }

    /** Raises the next id to at least {@code id} (ids recorded by a checkpoint are never reused). */
    public void reserveIdsBelow(int id) {
        nextId.accumulateAndGet(id, Math::max);
    }

    /** Every live file. */
    public List<CachedFile> live() {
        return new ArrayList<>(byPath.values());
    }

    /** The live registration of {@code path}, or null. */
    public CachedFile registered(String path) {
        return byPath.get(path);
    }

    public boolean isRegistered(String path) {
        return byPath.containsKey(path);
    }

    /** Whether the file of this id is registered and its chunks are now stored as they are ({@link CachedFile#storesUncompressed}). */
    public boolean storesUncompressed(int id) {
        CachedFile file = byId.get(id);
        return file != null && file.storesUncompressed();
    }

    /** The live registration of this id, or null. */
    public CachedFile byId(int id) {
        return byId.get(id);
    }

    /**
     * The file is gone or changed: neither its path nor its id leads to it any more (the id is never
     * handed out again). Returns false if it already was.
     */
    public boolean invalidate(CachedFile file) {
        if (!byPath.remove(file.path(), file)) {
            return false;
        }
        file.invalidate();
        byId.remove(file.id(), file);
        return true;
    }

    /** Whether entries of this file id may still be served. */
    public boolean isLive(int fileId) {
        CachedFile file = byId.get(fileId);
        return file != null && !file.isInvalidated();
    }

    public int liveFiles() {
        return byPath.size();
    }

    /** The next id to hand out (checkpoints record it). */
    public int nextId() {
        return nextId.get();
    }
}

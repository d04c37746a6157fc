package io.flashchunk.cassandra;

import io.flashchunk.cache.FlashCache;
import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Which SSTable data files the cache holds chunks of, and when one is gone.
 *
 * <p>Cassandra calls {@code invalidateFile(path)} whenever the last handle of a file is released:
 * when an SSTable is deleted (compaction, DROP, TRUNCATE), but also when an early-opened handle is
 * replaced while the file lives on. And it calls it before it deletes the file. So a release only
 * starts a watch: the file's chunks are dropped once its path leads to no file or another one, and
 * the watch ends when the file is reopened or has outlived {@link #WATCH_NANOS}. A file replaced
 * under the same path while nobody watched is caught when it is registered again (see
 * {@link FlashCache#registerFile(FileIdentity)}).
 */
final class SSTableFiles {
    static final long WATCH_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final FlashCache cache;
    /** Released paths being watched, with when each was released (System.nanoTime). */
    private final Map<String, Long> released = new ConcurrentHashMap<>();

    SSTableFiles(FlashCache cache) {
        this.cache = cache;
    }

    /** The registration of the data file at {@code path} as it is now (a handle is being opened). */
    CachedFile open(String path) throws IOException {
        String absolute = Path.of(path).toAbsolutePath().toString();
        released.remove(absolute);
        return cache.registerFile(FileIdentity.of(Path.of(absolute)));
    }

    /** The last handle of {@code path} was released: the file may be about to be deleted. */
    void released(String path) {
        String absolute = Path.of(path).toAbsolutePath().toString();
        if (cache.files().isRegistered(absolute)) {
            released.put(absolute, System.nanoTime());
            checkReleased();
        }
    }

    /** Drops the chunks of released files that are gone; run often (a check is one stat per file). */
    int checkReleased() {
        int dropped = 0;
        long now = System.nanoTime();
        for (Map.Entry<String, Long> watch : released.entrySet()) {
            String path = watch.getKey();
            CachedFile file = cache.files().registered(path);
            if (file == null) {
                released.remove(path, watch.getValue());
            } else if (!stillThere(file)) {
                cache.invalidateFile(file);
                released.remove(path, watch.getValue());
                dropped++;
            } else if (now - watch.getValue() > WATCH_NANOS) {
                released.remove(path, watch.getValue());
            }
        }
        return dropped;
    }

    int watched() {
        return released.size();
    }

    private static boolean stillThere(CachedFile file) {
        try {
            return FileIdentity.of(Path.of(file.path())).notToldApartFrom(file.identity());
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            return true; // cannot tell now: ask again on the next check
        }
    }
}

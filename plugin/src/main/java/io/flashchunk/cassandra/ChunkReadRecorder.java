package io.flashchunk.cassandra;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records every chunk read Cassandra asks the flash cache for, for the cache simulator
 * ({@code scripts/sim-cache.sh --recorded FILE}): one big-endian {@code (long key, int bytes)} record
 * per read, the key naming the file and the chunk's 4 KiB-aligned position (file ids are never
 * reused, across restarts too, so a key names one chunk for the life of a device).
 *
 * <p>A diagnostic, off unless the JVM option {@code -Dflashchunk.record_reads=PATH} names a file: reads
 * take one lock here, and the buffer is written to the file under it when full (through a stream, not
 * an interruptible channel: an interrupted reader must not end the recording). A SIGKILL loses what is
 * buffered, up to {@value #BUFFERED_RECORDS} reads; a restarted node appends, first cutting a record
 * the previous JVM left torn. One JVM at a time records to a file (a file lock). Recording stops for
 * good, with one log line, at the limit ({@code -Dflashchunk.record_reads_limit}, records in the file)
 * or at an I/O error; a read is never failed by it.
 */
final class ChunkReadRecorder implements AutoCloseable {
    static final String PATH_PROPERTY = "flashchunk.record_reads";
    static final String LIMIT_PROPERTY = "flashchunk.record_reads_limit";
    static final long DEFAULT_LIMIT = 50_000_000;
    static final int RECORD_BYTES = Long.BYTES + Integer.BYTES;

    private static final Logger LOG = LoggerFactory.getLogger(ChunkReadRecorder.class);
    private static final int BUFFERED_RECORDS = 1 << 16;

    private final Path path;
    private final FileOutputStream out;
    private final FileLock lock;
    private final ByteBuffer buffer = ByteBuffer.allocate(RECORD_BYTES * BUFFERED_RECORDS);
    private final long limit;
    private long records;
    private boolean stopped;

    ChunkReadRecorder(Path path, long limit) throws IOException {
        if (limit <= 0) {
            throw new IllegalArgumentException("-D" + LIMIT_PROPERTY + ": must be a positive number of reads, got "
                    + limit);
        }
        this.path = path;
        this.limit = limit;
        this.out = new FileOutputStream(path.toFile(), true);
        try {
            this.lock = lock(out, path);
            try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
                long whole = file.length() / RECORD_BYTES;
                file.setLength(whole * RECORD_BYTES);
                this.records = whole;
            }
        } catch (IOException | RuntimeException e) {
            out.close();
            throw e;
        }
        if (records >= limit) {
            stopped = true;
            closeFile();
        }
    }

    private static FileLock lock(FileOutputStream out, Path path) throws IOException {
        FileLock lock;
        try {
            lock = out.getChannel().tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // this JVM holds it
        }
        if (lock == null) {
            throw new IOException(path + ": another recorder is recording chunk reads to this file");
        }
        return lock;
    }

    /** The recorder the JVM options ask for, or null when they ask for none. */
    static ChunkReadRecorder fromSystemProperties() throws IOException {
        String file = System.getProperty(PATH_PROPERTY);
        if (file == null || file.isBlank()) {
            return null;
        }
        String limit = System.getProperty(LIMIT_PROPERTY);
        long reads;
        try {
            reads = limit == null ? DEFAULT_LIMIT : Long.parseLong(limit.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-D" + LIMIT_PROPERTY + ": must be a number of reads, got '" + limit
                    + "'", e);
        }
        ChunkReadRecorder recorder = new ChunkReadRecorder(Path.of(file), reads);
        LOG.info("flash chunk cache: recording chunk reads to {} ({} recorded before, limit {})", file,
                recorder.records, reads);
        return recorder;
    }

    /** The key of the chunk at {@code chunkStart} of file {@code fileId}: the file above, 4 KiB units below. */
    static long key(int fileId, long chunkStart) {
        return ((long) fileId << 32) | (chunkStart >>> 12);
    }

    synchronized void record(int fileId, long chunkStart, int bytes) {
        if (stopped) {
            return;
        }
        buffer.putLong(key(fileId, chunkStart)).putInt(bytes);
        records++;
        if (records >= limit) {
            stop("the limit of " + limit + " reads is reached");
        } else if (!buffer.hasRemaining()) {
            drain();
        }
    }

    synchronized long records() {
        return records;
    }

    /** Writes what is buffered and closes the file (the node's clean stop). */
    @Override
    public synchronized void close() {
        if (!stopped) {
            stop("the cache closed");
        }
    }

    private void stop(String why) {
        if (drain()) {
            LOG.info("flash chunk cache: recorded {} chunk reads to {}; recording stopped: {}", records, path, why);
        }
        stopped = true;
        closeFile();
    }

    /** Writes the buffer out; on an I/O error stops recording and says so. */
    private boolean drain() {
        buffer.flip();
        try {
            out.write(buffer.array(), 0, buffer.limit());
            return true;
        } catch (IOException e) {
            stopped = true;
            closeFile();
            LOG.warn("flash chunk cache: recording chunk reads to {} stopped: {}", path, e.toString());
            return false;
        } finally {
            buffer.clear();
        }
    }

    private void closeFile() {
        try {
            out.close(); // releases the lock too
        } catch (IOException e) {
            LOG.warn("flash chunk cache: closing the read recording {} failed: {}", path, e.toString());
        }
    }
}

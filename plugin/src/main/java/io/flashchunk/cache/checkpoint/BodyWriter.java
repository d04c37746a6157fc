package io.flashchunk.cache.checkpoint;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import io.flashchunk.device.DeviceTimeoutException;

/**
 * Streams a checkpoint body of any length into one checkpoint area, and then its header: the one
 * order of writes every checkpoint format keeps. On construction the area's old header is wiped (a
 * half-written body must never pass as the old checkpoint); bytes appended go out in
 * {@value #PIECE_BYTES}-byte writes from the block after the header, so the body is contiguous on
 * flash; {@link #finish} writes the rest and flushes, then writes the header and flushes again
 * ({@link #finishBody} and {@link #writeHeader} apart, for a full checkpoint with a delta between).
 *
 * <p>A piece's write (and the wipe) goes on while the next piece fills ({@value #PIECES} pieces):
 * appending waits only when a full piece's write would start before the one under way ended, and {@link #roomWithoutWaiting} tells a caller that
 * must not wait (the writer thread copying the index between its appends) how much it may append
 * before it would. A piece's failed write is thrown by a later call, {@link #finishBody} at the latest.
 *
 * <p>Not thread-safe: one thread at a time (a full checkpoint's end may run on another thread than
 * its copy, handed over with a happens-before edge).
 */
final class BodyWriter {
    static final int PIECE_BYTES = 4 << 20;
    /** Pieces: one filling while the other's write goes on. */
    static final int PIECES = 2;

    private final StorageDriver driver;
    private final long headerBlock;
    private final long capacityBytes;
    private final String where;
    /** The piece filling. */
    private ByteBuffer piece = AlignedBuffers.allocate(PIECE_BYTES);
    /** The other piece (allocated at the first piece's write): being written while {@link #writing} is set. */
    private ByteBuffer other;
    /** The write under way (the other piece's, or the wipe of the old header), or null; and where it goes. */
    private CompletableFuture<Void> writing;
    private long writingLba;
    private long writingSinceMillis;
    private final LongSupplier clockMillis;
    /** A piece's write failed: every later call throws it. */
    private IOException failed;
    private long written;
    private long appended;

    /**
     * @param headerBlock   the area's first block, where its header goes; the body follows it
     * @param capacityBytes the most body bytes the area holds
     * @param clockMillis   when a write under way started, against the device timeout
     */
    public BodyWriter(StorageDriver driver, long headerBlock, long capacityBytes, String where,
                      LongSupplier clockMillis) throws IOException {
        this.driver = driver;
        this.clockMillis = clockMillis;
        this.headerBlock = headerBlock;
        this.capacityBytes = capacityBytes;
        this.where = where;
        // The wipe goes on as the first piece fills; that piece's write starts once it has ended.
        start(headerBlock, AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE));
    }

    /** Whether {@code bytes} more fit the area. */
    boolean fits(long bytes) {
        return appended + bytes <= capacityBytes;
    }

    /**
     * How many bytes {@link #append} takes now without waiting for a write: short of filling the
     * piece (a full piece's write starts only once the write before it has ended), and a whole piece
     * more when no write is under way. Throws a write's failure, and a timeout once the write under
     * way has taken longer than the device timeout (as waiting for it would have).
     */
    long roomWithoutWaiting() throws IOException {
        throwIfFailed();
        if (writing != null && writing.isDone()) {
            reap();
        } else if (writing != null
                && clockMillis.getAsLong() - writingSinceMillis > TimeUnit.NANOSECONDS.toMillis(driver.timeoutNanos())) {
            // Kept under way: giving the body up still waits for it.
            failed = new DeviceTimeoutException("checkpoint write at block " + writingLba + " on " + driver.path()
                    + " did not finish in " + TimeUnit.NANOSECONDS.toMillis(driver.timeoutNanos())
                    + " ms: the device may be hung");
            throw failed;
        }
        return piece.remaining() - 1 + (writing == null ? PIECE_BYTES : 0);
    }

    /** Appends {@code bytes} (position to limit; consumed). */
    public void append(ByteBuffer bytes) throws IOException {
        throwIfFailed();
        if (!fits(bytes.remaining())) {
            throw new IOException(where + ": a checkpoint body of more than " + capacityBytes
                    + " bytes does not fit the area");
        }
        appended += bytes.remaining();
        while (bytes.hasRemaining()) {
            int n = Math.min(piece.remaining(), bytes.remaining());
            piece.put(bytes.duplicate().limit(bytes.position() + n));
            bytes.position(bytes.position() + n);
            if (!piece.hasRemaining()) {
                writePiece();
            }
        }
    }

    public void append(byte[] bytes, int offset, int length) throws IOException {
        append(ByteBuffer.wrap(bytes, offset, length));
    }

    /** Body bytes appended so far. */
    public long bytes() {
        return appended;
    }

    /** Writes what is left of the body and makes it durable, then writes {@code header} (one block) and makes it durable. */
    public void finish(ByteBuffer header) throws IOException {
        finishBody();
        writeHeader(header);
    }

    /** Writes what is left of the body and makes it durable (a full checkpoint's delta goes between this and its header). */
    void finishBody() throws IOException {
        throwIfFailed();
        if (piece.position() > 0) {
            writePiece();
        }
        if (writing != null) {
            reap();
        }
        driver.flush();
    }

    /** Writes {@code header} (one block) over the wiped one and makes it durable: the body counts from here. */
    void writeHeader(ByteBuffer header) throws IOException {
        throwIfFailed();
        driver.writeAndWait(headerBlock, header, "checkpoint write at block " + headerBlock);
        driver.flush();
    }

    /** Starts the filling piece's write (after the other's has ended) and takes the other piece to fill. */
    private void writePiece() throws IOException {
        int used = piece.position();
        int rounded = (used + BlockDevice.BLOCK_SIZE - 1) & -BlockDevice.BLOCK_SIZE;
        // Zero the tail of the last block, so the area holds no stale bytes past the body.
        for (int i = used; i < rounded; i++) {
            piece.put(i, (byte) 0);
        }
        if (writing != null) {
            reap();
        }
        start(headerBlock + 1 + written / BlockDevice.BLOCK_SIZE, piece.duplicate().position(0).limit(rounded));
        written += rounded;
        ByteBuffer next = other != null ? other : AlignedBuffers.allocate(PIECE_BYTES);
        other = piece;
        piece = next.clear();
    }

    /** Starts a write, the one under way from now on. */
    private void start(long lba, ByteBuffer blocks) throws IOException {
        try {
            writing = driver.write(lba, blocks);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting to start the checkpoint write at block " + lba
                    + " on " + driver.path(), e);
        }
        writingLba = lba;
        writingSinceMillis = clockMillis.getAsLong();
    }

    /**
     * Gives the body up: waits for a piece's write still under way (at most the device timeout once
     * more), whatever its outcome, so that none lands after a later checkpoint's writes to the same
     * area unless the device holds it longer than that.
     */
    void abandon() {
        CompletableFuture<Void> write = writing;
        writing = null;
        if (write != null) {
            try {
                driver.await(write, "checkpoint write at block " + writingLba);
            } catch (IOException e) {
                // given up either way
            }
        }
    }

    /** Waits for the other piece's write (at most the device timeout); its piece is free to fill again. */
    private void reap() throws IOException {
        CompletableFuture<Void> write = writing;
        try {
            driver.await(write, "checkpoint write at block " + writingLba);
        } catch (IOException e) {
            failed = e;
            throw e;
        } finally {
            if (write.isDone()) {
                writing = null; // one timed out stays, for abandon to wait for
            }
        }
    }

    private void throwIfFailed() throws IOException {
        if (failed != null) {
            throw failed;
        }
    }
}

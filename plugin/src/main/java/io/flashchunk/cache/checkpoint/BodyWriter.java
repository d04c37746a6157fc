package io.flashchunk.cache.checkpoint;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Streams a checkpoint body of any length into one checkpoint area, and then its header: the one
 * order of writes every checkpoint format keeps. On construction the area's old header is wiped (a
 * half-written body must never pass as the old checkpoint); bytes appended go out in
 * {@value #PIECE_BYTES}-byte writes from the block after the header, so the body is contiguous on
 * flash; {@link #finish} writes the rest and flushes, then writes the header and flushes again
 * ({@link #finishBody} and {@link #writeHeader} apart, for a full checkpoint with a delta between).
 *
 * <p>Not thread-safe: one checkpoint writes one area from one thread.
 */
final class BodyWriter {
    static final int PIECE_BYTES = 4 << 20;

    private final StorageDriver driver;
    private final long headerBlock;
    private final long capacityBytes;
    private final String where;
    private final ByteBuffer piece = AlignedBuffers.allocate(PIECE_BYTES);
    private long written;
    private long appended;

    /**
     * @param headerBlock   the area's first block, where its header goes; the body follows it
     * @param capacityBytes the most body bytes the area holds
     */
    public BodyWriter(StorageDriver driver, long headerBlock, long capacityBytes, String where) throws IOException {
        this.driver = driver;
        this.headerBlock = headerBlock;
        this.capacityBytes = capacityBytes;
        this.where = where;
        write(headerBlock, AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE));
    }

    /** Whether {@code bytes} more fit the area. */
    boolean fits(long bytes) {
        return appended + bytes <= capacityBytes;
    }

    /** Appends {@code bytes} (position to limit; consumed). */
    public void append(ByteBuffer bytes) throws IOException {
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
        if (piece.position() > 0) {
            writePiece();
        }
        driver.flush();
    }

    /** Writes {@code header} (one block) over the wiped one and makes it durable: the body counts from here. */
    void writeHeader(ByteBuffer header) throws IOException {
        write(headerBlock, header);
        driver.flush();
    }

    private void writePiece() throws IOException {
        int used = piece.position();
        int rounded = (used + BlockDevice.BLOCK_SIZE - 1) & -BlockDevice.BLOCK_SIZE;
        // Zero the tail of the last block, so the area holds no stale bytes past the body.
        for (int i = used; i < rounded; i++) {
            piece.put(i, (byte) 0);
        }
        write(headerBlock + 1 + written / BlockDevice.BLOCK_SIZE, piece.duplicate().position(0).limit(rounded));
        written += rounded;
        piece.clear();
    }

    private void write(long lba, ByteBuffer blocks) throws IOException {
        driver.writeAndWait(lba, blocks, "checkpoint write at block " + lba);
    }
}

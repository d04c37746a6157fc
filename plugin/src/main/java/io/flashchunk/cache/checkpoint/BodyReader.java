package io.flashchunk.cache.checkpoint;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.format.CheckpointFormatException;
import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Streams a checkpoint body of any length off a device through a few aligned buffers, a few reads in
 * flight, handing each piece to the caller in order: its size is bounded only by the area, never by
 * one buffer. Each read waits at most the timeout given.
 */
public final class BodyReader {
    /** Pieces in flight at once. */
    private static final int PIECES_IN_FLIGHT = 4;

    /** Receives the body in order. */
    @FunctionalInterface
    public interface Pieces {
        /** {@code piece} holds the body's bytes from {@code offset} on (position 0 to limit; valid only during the call). */
        void accept(ByteBuffer piece, long offset) throws CheckpointFormatException;
    }

    private BodyReader() {
    }

    /** Reads {@code bodyBytes} bytes from block {@code firstBlock} on, in pieces of at most {@code pieceBytes}. */
    public static void read(BlockDevice device, long firstBlock, long bodyBytes, int pieceBytes, long timeoutNanos,
                            Pieces pieces) throws CheckpointFormatException {
        if (pieceBytes < BlockDevice.BLOCK_SIZE || pieceBytes % BlockDevice.BLOCK_SIZE != 0) {
            throw new IllegalArgumentException("piece of " + pieceBytes + " bytes is not a multiple of a block");
        }
        long rounded = (bodyBytes + BlockDevice.BLOCK_SIZE - 1) & -BlockDevice.BLOCK_SIZE;
        // A small body needs one small buffer; a large one a few whole pieces.
        int bufferBytes = (int) Math.max(BlockDevice.BLOCK_SIZE, Math.min(pieceBytes, rounded));
        long count = (rounded + pieceBytes - 1) / pieceBytes;
        ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
        for (int i = 0; i < Math.max(1, Math.min(PIECES_IN_FLIGHT, count)); i++) {
            free.add(AlignedBuffers.allocate(bufferBytes));
        }
        ArrayDeque<Piece> inFlight = new ArrayDeque<>();
        long submitted = 0;
        try {
            while (true) {
                while (!free.isEmpty() && submitted < rounded) {
                    int length = (int) Math.min(pieceBytes, rounded - submitted);
                    ByteBuffer buffer = free.poll().clear().limit(length);
                    inFlight.add(new Piece(buffer, submitted, length,
                            device.read(firstBlock + submitted / BlockDevice.BLOCK_SIZE, buffer)));
                    submitted += length;
                }
                Piece piece = inFlight.poll();
                if (piece == null) {
                    return;
                }
                await(piece.read(), timeoutNanos);
                int body = (int) Math.min(piece.length(), bodyBytes - piece.offset());
                pieces.accept(piece.buffer().duplicate().position(0).limit(body), piece.offset());
                free.add(piece.buffer());
            }
        } catch (ExecutionException | TimeoutException | IllegalArgumentException e) {
            // Buffers of reads still running are dropped, not reused: only those reads write into them.
            throw new CheckpointFormatException(device.path() + ": cannot read checkpoint body: "
                    + reason(e, timeoutNanos));
        }
    }

    /** Waits for a read; a timed-out read keeps its buffer (the device holds it until the read ends). */
    static void await(CompletableFuture<Void> read, long timeoutNanos)
            throws ExecutionException, TimeoutException, CheckpointFormatException {
        try {
            read.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CheckpointFormatException("interrupted while reading a checkpoint");
        }
    }

    static String reason(Exception e, long timeoutNanos) {
        if (e instanceof TimeoutException) {
            return "no answer in " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (the device may be hung)";
        }
        Throwable cause = e.getCause() == null ? e : e.getCause();
        return cause.getMessage();
    }

    /** A piece of the body: its buffer, where it starts in the body, its length and its read. */
    private static final class Piece {
        private final ByteBuffer buffer;
        private final long offset;
        private final int length;
        private final CompletableFuture<Void> read;

        Piece(ByteBuffer buffer, long offset, int length, CompletableFuture<Void> read) {
            this.buffer = buffer;
            this.offset = offset;
            this.length = length;
            this.read = read;
        }

        ByteBuffer buffer() {
            return buffer;
        }

        long offset() {
            return offset;
        }

        int length() {
            return length;
        }

        CompletableFuture<Void> read() {
            return read;
        }
    }
}

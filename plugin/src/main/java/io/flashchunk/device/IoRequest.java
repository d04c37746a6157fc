package io.flashchunk.device;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** One accepted transfer, from submission until its future completes. */
public final class IoRequest {
    private final IoOp op;
    private final long offset;
    private final int length;
    private final ByteBuffer buffer;
    private final long address;
    private final long submittedNanos;
    private final CompletableFuture<Void> future = new CompletableFuture<>();

    IoRequest(IoOp op, long offset, int length, ByteBuffer buffer, long address, long submittedNanos) {
        this.op = op;
        this.offset = offset;
        this.length = length;
        this.buffer = buffer;
        this.address = address;
        this.submittedNanos = submittedNanos;
    }

    public IoOp op() {
        return op;
    }

    /** The first block, for devices that move whole blocks only (their requests start and end on blocks). */
    public long lba() {
        return offset / BlockDevice.BLOCK_SIZE;
    }

    /** The blocks moved, for devices that move whole blocks only. */
    public int blocks() {
        return length / BlockDevice.BLOCK_SIZE;
    }

    public int bytes() {
        return length;
    }

    /** Byte offset of the transfer on the device. */
    public long deviceOffset() {
        return offset;
    }

    /** The caller's buffer; the transfer covers its position to its limit. */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** Native address of the buffer's position. */
    public long address() {
        return address;
    }

    long submittedNanos() {
        return submittedNanos;
    }

    CompletableFuture<Void> future() {
        return future;
    }
}

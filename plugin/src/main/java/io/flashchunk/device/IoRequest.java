package io.flashchunk.device;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** One accepted transfer, from submission until its future completes. */
public final class IoRequest {
    private final IoOp op;
    private final long lba;
    private final int blocks;
    private final ByteBuffer buffer;
    private final long address;
    private final long submittedNanos;
    private final CompletableFuture<Void> future = new CompletableFuture<>();

    IoRequest(IoOp op, long lba, int blocks, ByteBuffer buffer, long address, long submittedNanos) {
        this.op = op;
        this.lba = lba;
        this.blocks = blocks;
        this.buffer = buffer;
        this.address = address;
        this.submittedNanos = submittedNanos;
    }

    public IoOp op() {
        return op;
    }

    public long lba() {
        return lba;
    }

    public int blocks() {
        return blocks;
    }

    public int bytes() {
        return blocks * BlockDevice.BLOCK_SIZE;
    }

    /** Byte offset of the first block on the device. */
    public long deviceOffset() {
        return lba * BlockDevice.BLOCK_SIZE;
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

package io.flashchunk.device;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A flash block device: fixed {@value #BLOCK_SIZE}-byte blocks addressed by LBA, asynchronous reads
 * and writes of contiguous blocks from and to aligned direct buffers.
 *
 * <p>A transfer covers the buffer's bytes from its position to its limit; that length must be a
 * positive multiple of {@value #BLOCK_SIZE} and the address of the position must be aligned to
 * {@value #BLOCK_SIZE}. The buffer's position and limit are left as they were; the caller must not
 * touch the buffer until the future completes.
 *
 * <p>At most {@link #queueDepth()} requests are in flight at once. Further requests wait inside the
 * device in submission order: the caller never blocks. Bad arguments (misaligned buffer, bad length,
 * LBA range past the end) throw {@link IllegalArgumentException} at once; I/O errors fail the future
 * with a {@link DeviceIoException}; a closed device fails it with a {@link DeviceClosedException}.
 *
 * <p>Futures complete on the device's completion thread: dependent actions must be short, or use the
 * {@code *Async} variants.
 */
public interface BlockDevice extends AutoCloseable {
    int BLOCK_SIZE = 4096;

    /** The path of the file or block device behind this device. */
    String path();

    /** The engine that moves the bytes. */
    IoEngine engine();

    /** Usable capacity in blocks: LBAs run from 0 to {@code capacityBlocks() - 1}. */
    long capacityBlocks();

    /** The most requests in flight at once. */
    int queueDepth();

    CompletableFuture<Void> read(long lba, ByteBuffer buffer);

    /**
     * The finest read this device does: {@link #readAt} offsets and lengths are multiples of it. A
     * power of two from 512 to {@value #BLOCK_SIZE}: {@value #BLOCK_SIZE} unless the device reads
     * finer, as an O_DIRECT file or disk with 512-byte logical blocks does. A read of a few bytes past
     * a block boundary then costs 512 bytes more, not a block.
     */
    default int readAlignment() {
        return BLOCK_SIZE;
    }

    /**
     * {@link #read} at a byte offset: the offset and the buffer's length are multiples of
     * {@link #readAlignment()}, the buffer's address of {@value #BLOCK_SIZE}.
     */
    default CompletableFuture<Void> readAt(long offset, ByteBuffer buffer) {
        return read(blockOf(offset), buffer);
    }

    /** {@link #readNow} at a byte offset, as {@link #readAt}. */
    default void readAtNow(long offset, ByteBuffer buffer) throws java.io.IOException {
        awaitRead(readAt(offset, buffer));
    }

    /** The block at byte {@code offset}, which must start one: for devices that read whole blocks only. */
    private long blockOf(long offset) {
        if (offset % BLOCK_SIZE != 0) {
            throw new IllegalArgumentException(path() + ": read offset " + offset + " is not a multiple of "
                    + BLOCK_SIZE + ", the finest read this device does");
        }
        return offset / BLOCK_SIZE;
    }

    CompletableFuture<Void> write(long lba, ByteBuffer buffer);

    /**
     * Reads in the calling thread and returns once the bytes are in the buffer, or throws: a blocking
     * read like the file read it replaces, without the queue's hand-offs to and from a completion
     * thread (two thread wake-ups a read, which cost the most when the cores are busy). Devices that
     * cannot read in the caller's thread wait for {@link #read}.
     */
    default void readNow(long lba, ByteBuffer buffer) throws java.io.IOException {
        awaitRead(read(lba, buffer));
    }

    /**
     * Waits for {@code read} without giving way to interrupts (the buffer is the device's until the
     * read ends) and rethrows its failure as it was.
     */
    static void awaitRead(CompletableFuture<Void> read) throws java.io.IOException {
        try {
            read.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof java.io.IOException io) {
                throw io;
            }
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /**
     * Makes every write completed so far durable (past the device's volatile write cache). Blocks
     * the calling thread; checkpoints call it, the data path never does.
     */
    void flush() throws java.io.IOException;

    /** A consistent snapshot of the counters since the device was opened. */
    DeviceStats stats();

    /** Waits for accepted requests to finish, then releases the device. Idempotent. */
    @Override
    void close();
}

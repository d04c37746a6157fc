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

    CompletableFuture<Void> write(long lba, ByteBuffer buffer);

    /**
     * Reads in the calling thread and returns once the bytes are in the buffer, or throws: a blocking
     * read like the file read it replaces, without the queue's hand-offs to and from a completion
     * thread (two thread wake-ups a read, which cost the most when the cores are busy). Devices that
     * cannot read in the caller's thread wait for {@link #read}.
     */
    default void readNow(long lba, ByteBuffer buffer) throws java.io.IOException {
        try {
            read(lba, buffer).join(); // uninterruptible: the buffer is the device's until the read ends
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof java.io.IOException) {
                throw (java.io.IOException) e.getCause();
            }
            throw e.getCause() instanceof RuntimeException ? (RuntimeException) e.getCause() : e;
        }
    }

    /**
     * Reads and waits for the read in the calling thread, at most {@code timeoutNanos}. The future is
     * done if the read ended within that time; if not, it completes when the read ends, and until then
     * the buffer is the device's. Devices that read in the caller's thread with a deadline (libaio
     * devices where the kernel gives io_uring rings) need no other thread for it; the others queue the
     * read and wait for it.
     */
    default CompletableFuture<Void> readWithin(long lba, ByteBuffer buffer, long timeoutNanos) {
        CompletableFuture<Void> read = read(lba, buffer);
        try {
            read.get(timeoutNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            // the future tells: not done yet, or failed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return read;
    }

    /**
     * Tells the device that the bytes of {@code blocks} blocks from {@code lba} are no longer needed
     * (TRIM: a block device's BLKDISCARD; a file's blocks freed with a punched hole), so that flash
     * can erase them ahead of the next write. What reads of them return afterwards is undefined (zeros,
     * the old bytes, anything): only checksums may judge them. Not durable until {@link #flush}. The
     * caller must not have a write to the range in flight. Blocks the calling thread, a large range in
     * pieces. False: this device cannot discard (the engine, the file system, or a block device without
     * discard support). A file's hole gives its space back to the file system (a later write into it
     * allocates again, and can meet a full file system), and the file system stalls the file's other
     * I/O while it punches: the engine is to discard files only when told to.
     */
    default boolean discard(long lba, long blocks) throws java.io.IOException {
        return false;
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

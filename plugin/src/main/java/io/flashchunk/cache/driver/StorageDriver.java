package io.flashchunk.cache.driver;

import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * The cache's access to one device (the paper's Storage Driver). Reads go straight to the device,
 * whose queue depth caps all parallelism; writes are background work and may hold at most
 * {@code maxWritesInFlight} of its slots, so a burst of cache fills never queues Cassandra's reads
 * behind it. A writer that finds no write slot free waits: writers are the cache's own threads.
 */
public final class StorageDriver implements AutoCloseable {
    private final BlockDevice device;
    private final Semaphore writeSlots;
    private final int maxWritesInFlight;

    public StorageDriver(BlockDevice device, int maxWritesInFlight) {
        if (maxWritesInFlight < 1) {
            throw new IllegalArgumentException(device.path() + ": writes in flight must be at least 1, got "
                    + maxWritesInFlight);
        }
        this.device = device;
        this.maxWritesInFlight = maxWritesInFlight;
        this.writeSlots = new Semaphore(maxWritesInFlight);
    }

    public String path() {
        return device.path();
    }

    public long capacityBlocks() {
        return device.capacityBlocks();
    }

    public BlockDevice device() {
        return device;
    }

    public int maxWritesInFlight() {
        return maxWritesInFlight;
    }

    public CompletableFuture<Void> read(long lba, ByteBuffer buffer) {
        return device.read(lba, buffer);
    }

    /** Reads in the calling thread; see {@link BlockDevice#readNow}. */
    public void readNow(long lba, ByteBuffer buffer) throws java.io.IOException {
        device.readNow(lba, buffer);
    }

    /** Starts a write once a write slot is free; blocks the calling (cache) thread until then. */
    public CompletableFuture<Void> write(long lba, ByteBuffer buffer) throws InterruptedException {
        writeSlots.acquire();
        CompletableFuture<Void> write;
        try {
            write = device.write(lba, buffer);
        } catch (RuntimeException e) {
            writeSlots.release();
            throw e;
        }
        return write.whenComplete((ignored, failure) -> writeSlots.release());
    }

    /** Writes in flight right now. */
    public int writesInFlight() {
        return maxWritesInFlight - writeSlots.availablePermits();
    }

    @Override
    public void close() {
        device.close();
    }
}

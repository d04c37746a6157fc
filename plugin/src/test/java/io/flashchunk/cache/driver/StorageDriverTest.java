package io.flashchunk.cache.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.DeviceTimeoutException;
import io.flashchunk.testing.FaultyDevice;
import io.flashchunk.testing.MemoryDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Cache fills take at most their share of a device's queue, so a burst of them never queues Cassandra's reads. */
class StorageDriverTest {

    @Test
    void writesTakeAtMostTheirShareOfTheQueueAndReadsStillGetThrough() throws Exception {
        FaultyDevice device = new FaultyDevice(MemoryDevice.blank("/dev/share", 64, 16));
        StorageDriver driver = new StorageDriver(device, 3, TimeUnit.MILLISECONDS.toNanos(50));
        CompletableFuture<Void> gate = device.hang(FaultyDevice.Op.WRITE);
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            writes.add(driver.write(i, AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE)));
        }
        // All three slots are held by writes the device does not finish: a fourth gets none in time.
        CompletableFuture<Void> fourth = driver.write(3, AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE));
        ExecutionException refused = assertThrows(ExecutionException.class, () -> fourth.get(10, TimeUnit.SECONDS));
        assertInstanceOf(DeviceTimeoutException.class, refused.getCause());
        assertTrue(refused.getCause().getMessage().contains("/dev/share") && refused.getCause().getMessage().contains("50 ms")
                && refused.getCause().getMessage().contains("all 3 write slots held"), refused.getCause().getMessage());
        assertEquals(3, device.held(), "only the share reached the device");
        driver.read(10, AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE)).get(10, TimeUnit.SECONDS);

        gate.complete(null);
        for (CompletableFuture<Void> write : writes) {
            write.get(10, TimeUnit.SECONDS);
        }
        driver.write(4, AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE)).get(10, TimeUnit.SECONDS);
        assertEquals(0, driver.writesInFlight(), "every slot came back");
    }
}

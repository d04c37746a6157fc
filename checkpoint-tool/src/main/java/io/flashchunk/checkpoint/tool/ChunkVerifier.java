package io.flashchunk.checkpoint.tool;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.cache.index.FileIdentity;
import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.zip.CRC32C;

/**
 * Reads every chunk a checkpoint names back from its device and checks its CRC32C, the check the
 * cache makes on every flash hit: over the first {@code length} bytes of the chunk's run. Several
 * reads are in flight at once, each into its own aligned buffer.
 *
 * <p>A mismatch is a problem, unless the chunk's file is no longer the file the checkpoint recorded
 * (changed or gone, judged as recovery judges it: {@link FileIdentity#unchangedOnDisk}): recovery
 * drops such a file's chunks without reading them, and the cache frees their runs at once when it
 * learns the file changed, so their blocks may legitimately hold other data. Those are counted as
 * stale and noted.
 */
final class ChunkVerifier {
    private static final int MAX_IN_FLIGHT = 32;

    private final Verification verification;
    private final ProgressBar progress;
    private final Map<FileIdentity, Boolean> unchanged = new HashMap<>();

    /** {@code progress} may be null. */
    ChunkVerifier(Verification verification, ProgressBar progress) {
        this.verification = verification;
        this.progress = progress;
    }

    private record InFlight(CacheEntry entry, ByteBuffer buffer, CompletableFuture<Void> read) {
    }

    /** Checks every chunk the device's newest valid checkpoint names. */
    void verify(BlockDevice device, DeviceScan scan) {
        int window = Math.max(1, Math.min(MAX_IN_FLIGHT, device.queueDepth()));
        ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
        ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
        CacheEntries.forEach(scan, entry -> {
            if (free.isEmpty()) {
                free.push(inFlight.size() < window ? AlignedBuffers.allocate(ChunkLocation.MAX_LENGTH)
                        : complete(inFlight.poll()));
            }
            ByteBuffer buffer = free.pop();
            buffer.clear().limit(entry.runBytes());
            try {
                inFlight.add(new InFlight(entry, buffer, device.read(entry.lba(), buffer)));
            } catch (IllegalArgumentException e) {
                unreadable(entry, e);
                advance();
                free.push(buffer);
            }
        });
        while (!inFlight.isEmpty()) {
            complete(inFlight.poll());
        }
    }

    /** Waits for one read and checks it; returns its buffer for the next read. */
    private ByteBuffer complete(InFlight read) {
        CacheEntry entry = read.entry();
        try {
            read.read().join();
            CRC32C crc = new CRC32C();
            crc.update(read.buffer().duplicate().position(0).limit(entry.length()));
            verification.checkedChunks++;
            int found = (int) crc.getValue();
            if (found != entry.crc()) {
                mismatch(entry, found);
            }
        } catch (CompletionException e) {
            unreadable(entry, e.getCause() == null ? e : e.getCause());
        }
        advance();
        return read.buffer();
    }

    private void advance() {
        if (progress != null) {
            progress.advance(1);
        }
    }

    private void mismatch(CacheEntry entry, int found) {
        String message = entry.device() + ": chunk at " + entry.describe() + " (" + entry.length()
                + " bytes): CRC32C mismatch: the checkpoint records " + entry.crcHex() + ", the device holds "
                + String.format("%08x", found);
        if (unchanged.computeIfAbsent(entry.file(), FileIdentity::unchangedOnDisk)) {
            verification.corruptChunks++;
            verification.problem(Problem.CHUNK, entry.device(), null, message);
        } else {
            verification.staleChunks++;
            verification.note(message + "; not a problem: " + entry.file().path()
                    + " has changed or is gone since the checkpoint, so recovery drops its chunks");
        }
    }

    private void unreadable(CacheEntry entry, Throwable cause) {
        verification.unreadableChunks++;
        verification.problem(Problem.CHUNK, entry.device(), null, entry.device() + ": chunk at " + entry.describe()
                + ": cannot read blocks " + entry.lba() + ".." + (entry.lba() + entry.runBlocks() - 1) + ": "
                + cause.getMessage());
    }
}

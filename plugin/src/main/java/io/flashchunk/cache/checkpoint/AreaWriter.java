package io.flashchunk.cache.checkpoint;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.driver.StorageDriver;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * Streams one checkpoint into one area: first the old header is wiped (a half-written body must
 * never pass as the old checkpoint), then the file table and the entries go out in 4 MiB writes,
 * then the body is flushed, and only then the header is written and flushed.
 */
final class AreaWriter {
    private static final int CHUNK = 4 << 20;

    private final StorageDriver driver;
    private final SpaceLayout layout;
    private final int area;
    private final long capacityBytes;
    private final ByteBuffer chunk = AlignedBuffers.allocate(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
    private final CRC32C entriesCrc = new CRC32C();
    private final ByteBuffer record = ByteBuffer.allocate(CheckpointFormat.ENTRY_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final int fileTableCrc;
    private final long fileTableBytes;
    private long bodyBytesWritten;
    private long entries;
    private long refused;

    AreaWriter(StorageDriver driver, SpaceLayout layout, int area, byte[] fileTable) throws IOException {
        this.driver = driver;
        this.layout = layout;
        this.area = area;
        this.capacityBytes = (layout.areaBlocks() - 1) * SpaceLayout.BLOCK_SIZE;
        write(layout.areaStart(area), AlignedBuffers.allocate(SpaceLayout.BLOCK_SIZE));
        CRC32C crc = new CRC32C();
        crc.update(fileTable);
        this.fileTableCrc = (int) crc.getValue();
        this.fileTableBytes = fileTable.length;
        if (fileTable.length > capacityBytes) {
            throw new IOException("the file table (" + fileTable.length + " bytes) does not fit checkpoint area "
                    + area + " of " + driver.path());
        }
        append(fileTable, fileTable.length);
    }

    /** Appends bytes to the body; full chunks go out, so the body stays contiguous on flash. */
    private void append(byte[] bytes, int length) throws IOException {
        for (int done = 0; done < length; ) {
            int n = Math.min(chunk.remaining(), length - done);
            chunk.put(bytes, done, n);
            done += n;
            if (!chunk.hasRemaining()) {
                writeChunk();
            }
        }
    }

    /** Adds one entry; false (and counted) when the area is full. */
    boolean add(int fileId, int chunkIndex, long location, int crc) throws IOException {
        if (fileTableBytes + (entries + 1) * CheckpointFormat.ENTRY_BYTES > capacityBytes) {
            refused++;
            return false;
        }
        record.clear();
        record.putInt(fileId).putInt(chunkIndex).putLong(location).putInt(crc);
        entriesCrc.update(record.array(), 0, CheckpointFormat.ENTRY_BYTES);
        append(record.array(), CheckpointFormat.ENTRY_BYTES);
        entries++;
        return true;
    }

    long entries() {
        return entries;
    }

    long refused() {
        return refused;
    }

    /** Writes what is left, makes the body durable, then writes the header and makes it durable. */
    CheckpointHeader finish(UUID instance, int spaceIndex, long sequence, int nextFileId, int fileCount)
            throws IOException {
        if (chunk.position() > 0) {
            writeChunk();
        }
        driver.flush();
        CheckpointHeader header = new CheckpointHeader(instance, spaceIndex, sequence, System.currentTimeMillis(),
                nextFileId, entries, fileCount, fileTableBytes, (int) entriesCrc.getValue(), fileTableCrc);
        write(layout.areaStart(area), header.encode());
        driver.flush();
        return header;
    }

    long bodyBytes() {
        return fileTableBytes + entries * CheckpointFormat.ENTRY_BYTES;
    }

    private void writeChunk() throws IOException {
        int used = chunk.position();
        int rounded = (used + SpaceLayout.BLOCK_SIZE - 1) & -SpaceLayout.BLOCK_SIZE;
        // Zero the tail of the last block, so the area holds no stale bytes past the body.
        for (int i = used; i < rounded; i++) {
            chunk.put(i, (byte) 0);
        }
        long lba = layout.areaStart(area) + 1 + bodyBytesWritten / SpaceLayout.BLOCK_SIZE;
        write(lba, chunk.duplicate().position(0).limit(rounded));
        bodyBytesWritten += rounded;
        chunk.clear();
    }

    private void write(long lba, ByteBuffer blocks) throws IOException {
        try {
            driver.await(driver.write(lba, blocks), "checkpoint write at block " + lba);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing a checkpoint to " + driver.path(), e);
        }
    }
}

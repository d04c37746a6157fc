package io.flashchunk.cache.checkpoint;

import io.flashchunk.cache.driver.StorageDriver;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * Streams one checkpoint of today's engine into one area ({@link BodyWriter} keeps the order of
 * writes): the file table, then the entries, each with its checksum, then the header.
 */
final class AreaWriter {
    private final BodyWriter body;
    private final CRC32C entriesCrc = new CRC32C();
    private final ByteBuffer record = ByteBuffer.allocate(CheckpointFormat.ENTRY_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final int fileTableCrc;
    private final long fileTableBytes;
    private long entries;
    private long refused;

    AreaWriter(StorageDriver driver, SpaceLayout layout, int area, byte[] fileTable) throws IOException {
        String where = CheckpointReader.areaName(driver.device(), area);
        this.body = new BodyWriter(driver, layout.areaStart(area), (layout.areaBlocks() - 1) * SpaceLayout.BLOCK_SIZE,
                where);
        CRC32C crc = new CRC32C();
        crc.update(fileTable);
        this.fileTableCrc = (int) crc.getValue();
        this.fileTableBytes = fileTable.length;
        if (!body.fits(fileTable.length)) {
            throw new IOException("the file table (" + fileTable.length + " bytes) does not fit " + where);
        }
        body.append(fileTable, 0, fileTable.length);
    }

    /** Adds one entry; false (and counted) when the area is full. */
    boolean add(int fileId, int chunkIndex, long location, int crc) throws IOException {
        if (!body.fits(CheckpointFormat.ENTRY_BYTES)) {
            refused++;
            return false;
        }
        record.clear();
        record.putInt(fileId).putInt(chunkIndex).putLong(location).putInt(crc);
        entriesCrc.update(record.array(), 0, CheckpointFormat.ENTRY_BYTES);
        body.append(record.flip());
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
        CheckpointHeader header = new CheckpointHeader(instance, spaceIndex, sequence, System.currentTimeMillis(),
                nextFileId, entries, fileCount, fileTableBytes, (int) entriesCrc.getValue(), fileTableCrc);
        body.finish(header.encode());
        return header;
    }

    long bodyBytes() {
        return body.bytes();
    }
}
